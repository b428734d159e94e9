//! A conversation with a model in no API's words: what a request, a reply and a streamed reply
//! say, so that each API is read into it and written from it once, and any client API reaches any
//! upstream API through it (as serde's data model stands between a type and every format).
//!
//! Only what can be said in more than one API is here. What one API can say and the others
//! cannot (a built-in tool, an encrypted reasoning item, a setting without an equivalent) is not
//! dropped on the way in: reading it is a [`Refusal`], which the gateway answers with a 400 in the
//! client's API's shape.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A request to a model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// `model`.
    pub model: Option<String>,
    /// The conversation, system messages included where they came (Chat and Responses take them
    /// anywhere; Messages takes one `system` before the conversation, which gets them all).
    pub messages: Vec<Message>,
    /// The function tools. Nothing else is a tool here.
    pub tools: Vec<Tool>,
    /// `tool_choice`.
    pub tool_choice: Option<ToolChoice>,
    /// `parallel_tool_calls` (Messages: the inverse of `disable_parallel_tool_use`).
    pub parallel_tool_calls: Option<bool>,
    /// The most tokens the reply may have: `max_completion_tokens`/`max_tokens`,
    /// `max_output_tokens`, `max_tokens`.
    pub max_tokens: Option<u64>,
    /// `temperature`.
    pub temperature: Option<f64>,
    /// `top_p`.
    pub top_p: Option<f64>,
    /// `stop`, `stop_sequences`.
    pub stop: Vec<String>,
    /// Whether the reply is streamed.
    pub stream: bool,
    /// Chat's `stream_options.include_usage`: whether a streamed Chat reply ends with a chunk
    /// that has no choices and the reply's usage. A Chat client that did not ask for it may read
    /// `choices[0]` of every chunk, so it is written only when asked; the other APIs always
    /// stream their usage, and every request to a Chat upstream asks for it.
    pub include_usage: bool,
    /// The reply's format: Chat's `response_format`, Responses' `text.format`, Messages'
    /// `output_format` (structured outputs).
    pub response_format: Option<ResponseFormat>,
    /// How hard a reasoning model thinks: Chat's `reasoning_effort`, Responses'
    /// `reasoning.effort` (`minimal`, `low`, `medium`, `high`…, as the client wrote it).
    pub reasoning_effort: Option<String>,
    /// A token budget for thinking: Messages' `thinking: {type: "enabled", budget_tokens}`.
    pub thinking_budget: Option<u64>,
    /// `user` (Messages: `metadata.user_id`).
    pub user: Option<String>,
    /// `metadata`, as given (string values).
    pub metadata: Option<Map<String, Value>>,
    /// `seed`.
    pub seed: Option<i64>,
    /// Responses' `previous_response_id`: the conversation it names comes before `messages`.
    pub previous_response_id: Option<String>,
    /// Responses' `store`: whether the reply is kept for a later `previous_response_id`.
    pub store: Option<bool>,
}

/// Who says a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// System and developer messages, Responses' `instructions`, Messages' `system`.
    System,
    /// The user; also the role of tool results (Chat's `tool` messages and Responses'
    /// `function_call_output` items are [`Part::Result`]s of a user message here, as Messages
    /// has them).
    User,
    /// The model.
    Assistant,
}

/// One message: who says it and what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who says it.
    pub role: Role,
    /// What it says, in order.
    pub parts: Vec<Part>,
}

/// A piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, by URL (`https://…` or a `data:` URL with its media type).
    Image {
        /// The URL.
        url: String,
        /// OpenAI's `detail` (`low`, `high`, `auto`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// A file given whole (a PDF), as a `data:` URL.
    File {
        /// The `data:` URL.
        data: String,
        /// Its name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filename: Option<String>,
    },
    /// The model's reasoning in words (Chat's `reasoning_content`, Responses' reasoning
    /// summaries, Messages' `thinking`), with the signature an API needs to take it back.
    Reasoning {
        /// The words.
        text: String,
        /// Messages' `signature` of a `thinking` block.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// A call the model makes (assistant messages only).
    Call(Call),
    /// The result of a call (user messages only).
    Result(ToolResult),
}

/// A tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// Its id (Chat's `id`, Responses' `call_id`, Messages' `tool_use` `id`), kept as the model's
    /// API gave it.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON text, exactly as the model wrote them (which may not be an object,
    /// or not JSON at all, when the reply was cut short).
    pub arguments: String,
}

/// The result of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The call it answers.
    pub call_id: String,
    /// What it says: text, images and files.
    pub content: Vec<Part>,
    /// Whether the tool failed (Messages' `is_error`; the OpenAI APIs say it in words only).
    pub is_error: bool,
}

/// A function tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// The JSON Schema of its arguments.
    pub parameters: Value,
    /// OpenAI's `strict`, Messages' `strict`.
    pub strict: Option<bool>,
}

/// Which tools the model may or must call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ToolChoice {
    /// It decides (Messages: `auto`).
    Auto,
    /// It calls none (Messages: `none`).
    None,
    /// It calls at least one (Chat and Responses: `required`; Messages: `any`).
    Required,
    /// It calls this one (Messages: `{type: "tool", name}`).
    Named(String),
}

/// The format of the reply's text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ResponseFormat {
    /// Plain text.
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON of this schema.
    JsonSchema {
        /// Its name.
        name: String,
        /// The schema.
        schema: Value,
        /// Whether it is followed exactly.
        strict: Option<bool>,
        /// Its description.
        description: Option<String>,
    },
}

/// A model's whole reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// Its id, as the upstream gave it.
    pub id: String,
    /// The model that answered.
    pub model: Option<String>,
    /// When it was made, in seconds since the epoch.
    pub created: Option<i64>,
    /// What it says: text, reasoning and calls, in order.
    pub parts: Vec<Part>,
    /// Why it ended.
    pub finish: Finish,
    /// What it cost.
    pub usage: Option<Usage>,
}

/// Why a reply ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Finish {
    /// The model was done (Chat `stop`, Responses `completed`, Messages `end_turn` or
    /// `stop_sequence`).
    Stop,
    /// It was cut at the token limit (Chat `length`, Responses `incomplete` for
    /// `max_output_tokens`, Messages `max_tokens`).
    Length,
    /// It called tools (Chat `tool_calls`, Messages `tool_use`; Responses says so only by its
    /// calls).
    ToolCalls,
    /// A content filter cut it (Chat `content_filter`, Responses `incomplete` for
    /// `content_filter`, Messages `refusal`).
    ContentFilter,
    /// Anything else, as the API said it.
    Other(String),
}

/// Tokens a reply cost.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// The prompt's tokens, cached ones included.
    pub input: u64,
    /// The reply's tokens, reasoning included.
    pub output: u64,
    /// Of the prompt's, those read from a cache.
    pub cached_input: Option<u64>,
    /// Of the reply's, those spent reasoning.
    pub reasoning: Option<u64>,
}

/// A piece of a streamed reply, in the order the model made it.
#[derive(Debug, Clone, PartialEq)]
pub enum Delta {
    /// The reply starts (sent once, first).
    Start {
        /// Its id.
        id: String,
        /// The model.
        model: Option<String>,
        /// When, in seconds since the epoch.
        created: Option<i64>,
    },
    /// More text.
    Text(String),
    /// More reasoning.
    Reasoning(String),
    /// The signature of the reasoning just streamed (Messages' `signature_delta`, sent once the
    /// thinking is whole): what Messages needs to take the reasoning back in a later turn.
    ReasoningSignature(String),
    /// A call starts: the `index`-th of the reply (from 0), with its id and name.
    CallStart {
        /// Its place among the reply's calls.
        index: usize,
        /// Its id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of a call's arguments.
    CallArguments {
        /// Its place among the reply's calls.
        index: usize,
        /// The next piece of its arguments' text.
        delta: String,
    },
    /// Why the reply ended (the stream may still carry its usage after it).
    Finish(Finish),
    /// What the reply cost (the last value given counts).
    Usage(Usage),
}

/// An error an upstream answered with, in no API's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorBody {
    /// What went wrong.
    pub message: String,
    /// Its type (`invalid_request_error`, `rate_limit_error`, `server_error`…).
    pub kind: String,
    /// A code, when the API gave one.
    pub code: Option<String>,
    /// The request field at fault, when the API named one.
    pub param: Option<String>,
}

/// Something a request says that the API it goes to cannot say: answered with a 400 in the
/// client's API's shape, naming the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    /// What cannot be translated, and what to do instead.
    pub message: String,
    /// The request field at fault (`tools`, `input`, `messages`…).
    pub param: &'static str,
}

impl Refusal {
    /// A refusal about `param`.
    pub fn new(param: &'static str, message: impl Into<String>) -> Refusal {
        Refusal {
            message: message.into(),
            param,
        }
    }
}
