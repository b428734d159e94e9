//! [`Prompt`]: a prompt template an MCP server offers (`prompts/list`, `prompts/get`), written as
//! a function under `#[prompt]`, and what it returns.
//!
//! ```
//! use tooldef::{prompt, PromptMessage};
//!
//! /// Plan a trip to a city.
//! #[prompt]
//! fn plan_trip(
//!     /// The city to visit.
//!     city: String,
//!     /// How many days the trip lasts.
//!     days: Option<u32>,
//! ) -> Vec<PromptMessage> {
//!     let days = days.unwrap_or(3);
//!     vec![PromptMessage::user(format!("Plan a {days}-day trip to {city}."))]
//! }
//! ```
//!
//! MCP sends a prompt's arguments as strings: each parameter is read from its string with
//! [`FromStr`](std::str::FromStr) (a `String` as it is), and a string its type cannot read is
//! refused with a message the client shows (`argument `days`: "five" is not valid here …`).

mod registry;

pub(crate) use registry::Prompts;

use std::borrow::Cow;
use std::fmt;
use std::future::Future;

use serde_json::{Map, Value, json};

use crate::completion::{CompletionRequest, Completions};
use crate::context::{CallContext, ContextError};
use crate::string_args::StringArgError;
use crate::{Content, StringArgs};

/// A prompt: a name, a definition and a function that makes its messages.
///
/// `#[prompt]` implements it for a unit struct named after the function (`plan_trip` →
/// `PlanTrip`); implement it by hand only for what the macro cannot express.
///
/// ```
/// use tooldef::{CallContext, Prompt, StringArgs, ToolSet, prompt};
///
/// /// Summarise a text.
/// #[prompt]
/// fn summarise(
///     /// The text to summarise.
///     text: String,
/// ) -> String {
///     format!("Summarise this: {text}")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// assert_eq!(Summarise.definition().name(), "summarise");
/// let set = ToolSet::builder().prompt(Summarise).build()?;
/// let arguments = StringArgs::from_iter([("text", "tooldef renders tools")]);
/// let reply = set.get_prompt("summarise", arguments, CallContext::new()).await?;
/// assert_eq!(reply.messages.len(), 1);
/// # Ok(())
/// # }
/// ```
pub trait Prompt: Send + Sync + 'static {
    /// The prompt's definition, made once.
    fn definition(&self) -> &'static PromptDefinition;

    /// The prompt's Rust type as its user names it, for messages such as two prompts of one
    /// name.
    fn type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }

    /// The application state its context parameters need ([`State<T>`](crate::State) needs a
    /// `T`), which [`ToolSetBuilder::build`](crate::ToolSetBuilder::build) checks was given.
    /// `#[prompt]` lists its parameters'; none by default.
    fn needed_state(&self) -> Vec<crate::NeededState> {
        Vec::new()
    }

    /// The messages for these arguments.
    fn get(
        &self,
        arguments: StringArgs,
        context: CallContext,
    ) -> impl Future<Output = Result<PromptReply, PromptError>> + Send;

    /// Suggestions for an argument being typed (MCP `completion/complete`); none by default.
    fn complete(
        &self,
        request: CompletionRequest,
        context: CallContext,
    ) -> impl Future<Output = Result<Completions, String>> + Send {
        let _ = (request, context);
        async { Ok(Completions::default()) }
    }
}

/// A prompt's definition: what `prompts/list` shows of it.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptDefinition {
    name: Cow<'static, str>,
    title: Option<Cow<'static, str>>,
    description: Option<Cow<'static, str>>,
    arguments: Vec<PromptArgument>,
    icons: Option<Value>,
    meta: Option<Map<String, Value>>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgument {
    /// Its name.
    pub name: Cow<'static, str>,
    /// A title for display.
    pub title: Option<Cow<'static, str>>,
    /// What it is, for the user.
    pub description: Option<Cow<'static, str>>,
    /// Whether it must be given.
    pub required: bool,
}

impl PromptArgument {
    /// An optional argument without a description.
    pub fn new(name: impl Into<Cow<'static, str>>) -> PromptArgument {
        PromptArgument {
            name: name.into(),
            title: None,
            description: None,
            required: false,
        }
    }

    /// With a description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With a title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Required or not.
    #[must_use]
    pub fn with_required(mut self, required: bool) -> Self {
        self.required = required;
        self
    }
}

impl PromptDefinition {
    /// A definition with only a name; add the rest with the `with_` methods.
    pub fn new(name: impl Into<Cow<'static, str>>) -> PromptDefinition {
        PromptDefinition {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            icons: None,
            meta: None,
        }
    }

    /// With a title for display.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// With a description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With one more argument.
    #[must_use]
    pub fn with_argument(mut self, argument: PromptArgument) -> Self {
        self.arguments.push(argument);
        self
    }

    /// With MCP `icons` (an array of `{src, mimeType, sizes, theme}`).
    #[must_use]
    pub fn with_icons(mut self, icons: Value) -> Self {
        self.icons = Some(icons);
        self
    }

    /// With MCP `_meta`.
    #[must_use]
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The title.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The description.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The arguments, in order.
    pub fn arguments(&self) -> &[PromptArgument] {
        &self.arguments
    }

    /// The definition as MCP's `Prompt` object.
    pub fn to_mcp(&self) -> Value {
        let mut prompt = Map::new();
        prompt.insert("name".into(), json!(self.name));
        if let Some(title) = &self.title {
            prompt.insert("title".into(), json!(title));
        }
        if let Some(description) = &self.description {
            prompt.insert("description".into(), json!(description));
        }
        if !self.arguments.is_empty() {
            let arguments = self
                .arguments
                .iter()
                .map(|argument| {
                    let mut value = Map::new();
                    value.insert("name".into(), json!(argument.name));
                    if let Some(title) = &argument.title {
                        value.insert("title".into(), json!(title));
                    }
                    if let Some(description) = &argument.description {
                        value.insert("description".into(), json!(description));
                    }
                    value.insert("required".into(), json!(argument.required));
                    Value::Object(value)
                })
                .collect();
            prompt.insert("arguments".into(), Value::Array(arguments));
        }
        if let Some(icons) = &self.icons {
            prompt.insert("icons".into(), icons.clone());
        }
        if let Some(meta) = &self.meta {
            prompt.insert("_meta".into(), Value::Object(meta.clone()));
        }
        Value::Object(prompt)
    }
}

/// Who says a message of a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The user.
    User,
    /// The assistant (the model).
    Assistant,
}

impl Role {
    /// As MCP writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One message of a prompt: text, an image, audio or a resource, said by the user or the
/// assistant.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl PromptMessage {
    /// A message of the user: text (`String`, `&str`), or any [`Content`] (an image, audio, an
    /// embedded [`ResourceContents`](crate::ResourceContents)).
    pub fn user(content: impl Into<Content>) -> PromptMessage {
        PromptMessage {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A message of the assistant.
    pub fn assistant(content: impl Into<Content>) -> PromptMessage {
        PromptMessage {
            role: Role::Assistant,
            content: content.into(),
        }
    }

    /// As MCP's `PromptMessage`.
    pub fn to_mcp(&self) -> Value {
        json!({ "role": self.role.as_str(), "content": self.content.to_mcp() })
    }
}

/// What `prompts/get` answers: the messages, and optionally a description of this use.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PromptReply {
    /// A description of the prompt as it was made.
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
}

impl PromptReply {
    /// These messages.
    pub fn new(messages: impl IntoIterator<Item = PromptMessage>) -> PromptReply {
        PromptReply {
            description: None,
            messages: messages.into_iter().collect(),
        }
    }

    /// With a description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> PromptReply {
        self.description = Some(description.into());
        self
    }

    /// As MCP's `GetPromptResult`.
    pub fn to_mcp(&self) -> Value {
        let mut reply = Map::new();
        if let Some(description) = &self.description {
            reply.insert("description".into(), json!(description));
        }
        reply.insert(
            "messages".into(),
            self.messages.iter().map(PromptMessage::to_mcp).collect(),
        );
        Value::Object(reply)
    }
}

/// What a `#[prompt]` function may return: text (one user message), a message, messages, a
/// [`PromptReply`], or a `Result` of one whose error the client reads.
#[diagnostic::on_unimplemented(
    message = "a prompt cannot return `{Self}`: it is not a prompt's messages",
    label = "not text, a `PromptMessage`, a `Vec<PromptMessage>` or a `PromptReply`",
    note = "return a `String` (one user message), a `PromptMessage`, a `Vec<PromptMessage>`, a `PromptReply`, or a `Result` of one whose error implements `Display`"
)]
pub trait IntoPromptReply {
    /// The reply, or the prompt's own error message.
    fn into_prompt_reply(self) -> Result<PromptReply, String>;
}

impl IntoPromptReply for PromptReply {
    fn into_prompt_reply(self) -> Result<PromptReply, String> {
        Ok(self)
    }
}

impl IntoPromptReply for Vec<PromptMessage> {
    fn into_prompt_reply(self) -> Result<PromptReply, String> {
        Ok(PromptReply::new(self))
    }
}

impl IntoPromptReply for PromptMessage {
    fn into_prompt_reply(self) -> Result<PromptReply, String> {
        Ok(PromptReply::new([self]))
    }
}

impl IntoPromptReply for String {
    fn into_prompt_reply(self) -> Result<PromptReply, String> {
        Ok(PromptReply::new([PromptMessage::user(self)]))
    }
}

impl IntoPromptReply for &'static str {
    fn into_prompt_reply(self) -> Result<PromptReply, String> {
        Ok(PromptReply::new([PromptMessage::user(self)]))
    }
}

impl<T: IntoPromptReply, E: fmt::Display> IntoPromptReply for Result<T, E> {
    fn into_prompt_reply(self) -> Result<PromptReply, String> {
        self.map_err(|e| e.to_string())?.into_prompt_reply()
    }
}

/// Why `prompts/get` has no messages.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// No prompt has this name.
    #[error("{}", crate::error::unknown_name_message(("prompt", "get"), .name, .suggestions, *.available))]
    Unknown {
        /// The name asked for.
        name: String,
        /// Names close to it, best first.
        suggestions: Vec<String>,
        /// How many prompts there are.
        available: usize,
    },
    /// An argument is missing or cannot be read.
    #[error("prompt `{prompt}`: {source}")]
    Argument {
        /// The prompt.
        prompt: String,
        /// What is wrong with the argument.
        source: StringArgError,
    },
    /// The prompt's function returned an error.
    #[error("prompt `{prompt}` failed: {message}")]
    Failed {
        /// The prompt.
        prompt: String,
        /// The function's message.
        message: String,
    },
    /// A context parameter could not be filled (a server error, not the client's).
    #[error("prompt `{prompt}` is unavailable because of a server error")]
    Unavailable {
        /// The prompt.
        prompt: String,
        /// Why, for the server's logs.
        reason: String,
    },
    /// The prompt's function panicked.
    #[error("prompt `{prompt}` failed because of a server error")]
    Panicked {
        /// The prompt.
        prompt: String,
        /// The panic's message, for the server's logs.
        message: String,
    },
}

impl PromptError {
    /// Whether the client's request is at fault (MCP `-32602`), not the server.
    pub fn is_invalid_params(&self) -> bool {
        matches!(
            self,
            PromptError::Unknown { .. } | PromptError::Argument { .. }
        )
    }

    /// The error of a context parameter the server did not provide.
    pub fn unavailable(definition: &PromptDefinition, error: &ContextError) -> PromptError {
        PromptError::Unavailable {
            prompt: definition.name().to_owned(),
            reason: error.to_string(),
        }
    }
}
