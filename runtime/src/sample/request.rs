//! What a tool sends the model: MCP's `sampling/createMessage` parameters, and their checks.

use std::collections::HashSet;

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::{SampleError, SampleFeatures};
use crate::targets::{McpOutputRules, TargetTool};
use crate::{
    Content, ListError, Role, SchemaError, Target, ToolDefinition, ToolError, ToolOutput, ToolSet,
};

/// A request for the client's model: MCP's `sampling/createMessage`. Build it with
/// [`SampleRequest::new`] and the methods that add to it; send it with
/// [`Sample::create`](crate::Sample::create).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SampleRequest {
    /// The conversation so far, oldest first; the model replies to the last message.
    pub messages: Vec<SampleMessage>,
    /// The system prompt the server asks for (the client may change or leave it out).
    pub system_prompt: Option<String>,
    /// Which model the server would like (the client chooses).
    pub model_preferences: Option<ModelPreferences>,
    /// Context from the client's MCP servers to add to the request.
    pub include_context: Option<IncludeContext>,
    /// How random the reply is.
    pub temperature: Option<f64>,
    /// The most tokens the reply may have.
    pub max_tokens: u32,
    /// Text at which the model stops.
    pub stop_sequences: Vec<String>,
    /// Provider-specific parameters, passed to the client as they are.
    pub metadata: Option<Map<String, Value>>,
    /// Tools the model may call (MCP tool definitions).
    pub tools: Vec<SampleTool>,
    /// Whether and how the model should call them.
    pub tool_choice: Option<SampleToolChoice>,
}

impl SampleRequest {
    /// A request for at most `max_tokens` tokens, with no messages yet: add them with
    /// [`user`](SampleRequest::user), [`assistant`](SampleRequest::assistant) or
    /// [`message`](SampleRequest::message).
    pub fn new(max_tokens: u32) -> SampleRequest {
        SampleRequest {
            messages: Vec::new(),
            system_prompt: None,
            model_preferences: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: Vec::new(),
            metadata: None,
            tools: Vec::new(),
            tool_choice: None,
        }
    }

    /// Adds a message of the user: text (`&str`, `String`) or any [`SampleContent`].
    #[must_use]
    pub fn user(self, content: impl Into<SampleContent>) -> SampleRequest {
        self.message(SampleMessage::user(content))
    }

    /// Adds a message of the assistant (the model's earlier turn).
    #[must_use]
    pub fn assistant(self, content: impl Into<SampleContent>) -> SampleRequest {
        self.message(SampleMessage::assistant(content))
    }

    /// Adds a message.
    #[must_use]
    pub fn message(mut self, message: SampleMessage) -> SampleRequest {
        self.messages.push(message);
        self
    }

    /// Sets the system prompt.
    #[must_use]
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> SampleRequest {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Sets which model the server would like.
    #[must_use]
    pub fn model_preferences(mut self, preferences: ModelPreferences) -> SampleRequest {
        self.model_preferences = Some(preferences);
        self
    }

    /// Asks for context from the client's MCP servers (needs the client's `sampling.context`
    /// for anything but [`IncludeContext::None`]).
    #[must_use]
    pub fn include_context(mut self, context: IncludeContext) -> SampleRequest {
        self.include_context = Some(context);
        self
    }

    /// Sets the temperature.
    #[must_use]
    pub fn temperature(mut self, temperature: f64) -> SampleRequest {
        self.temperature = Some(temperature);
        self
    }

    /// Adds a stop sequence.
    #[must_use]
    pub fn stop_sequence(mut self, stop: impl Into<String>) -> SampleRequest {
        self.stop_sequences.push(stop.into());
        self
    }

    /// Sets the provider-specific parameters.
    #[must_use]
    pub fn metadata(mut self, metadata: Map<String, Value>) -> SampleRequest {
        self.metadata = Some(metadata);
        self
    }

    /// Offers the model a tool (needs the client's `sampling.tools`).
    #[must_use]
    pub fn tool(mut self, tool: SampleTool) -> SampleRequest {
        self.tools.push(tool);
        self
    }

    /// Offers the model several tools.
    #[must_use]
    pub fn tools(mut self, tools: impl IntoIterator<Item = SampleTool>) -> SampleRequest {
        self.tools.extend(tools);
        self
    }

    /// Says whether and how the model should call the tools offered.
    #[must_use]
    pub fn tool_choice(mut self, choice: SampleToolChoice) -> SampleRequest {
        self.tool_choice = Some(choice);
        self
    }

    /// The request as MCP's `sampling/createMessage` parameters. A message of one block
    /// carries it as an object (as every version of MCP takes), of several as a list
    /// (MCP 2025-11-25).
    pub fn to_mcp(&self) -> Value {
        let mut params = Map::new();
        let messages = self.messages.iter().map(SampleMessage::to_mcp).collect();
        params.insert("messages".into(), Value::Array(messages));
        if let Some(prompt) = &self.system_prompt {
            params.insert("systemPrompt".into(), prompt.as_str().into());
        }
        if let Some(preferences) = &self.model_preferences {
            params.insert("modelPreferences".into(), preferences.to_mcp());
        }
        if let Some(context) = self.include_context {
            params.insert("includeContext".into(), context.as_str().into());
        }
        if let Some(temperature) = self.temperature {
            params.insert("temperature".into(), temperature.into());
        }
        params.insert("maxTokens".into(), self.max_tokens.into());
        if !self.stop_sequences.is_empty() {
            params.insert("stopSequences".into(), self.stop_sequences.clone().into());
        }
        if let Some(metadata) = &self.metadata {
            params.insert("metadata".into(), Value::Object(metadata.clone()));
        }
        if !self.tools.is_empty() {
            let tools = self.tools.iter().map(|tool| Value::Object(tool.0.clone()));
            params.insert("tools".into(), tools.collect());
        }
        if let Some(choice) = self.tool_choice {
            params.insert("toolChoice".into(), json!({ "mode": choice.as_str() }));
        }
        Value::Object(params)
    }

    /// Whether MCP takes the request, and a handler taking `features` can send it.
    pub(super) fn check(&self, features: SampleFeatures) -> Result<(), SampleError> {
        let invalid = |why: String| Err(SampleError::InvalidRequest(why));
        if self.messages.is_empty() {
            return invalid("it has no messages: add one with `.user(…)`".into());
        }
        if self.max_tokens == 0 {
            return invalid("`max_tokens` is 0, so the model could say nothing".into());
        }
        if let Some(temperature) = self.temperature
            && !temperature.is_finite()
        {
            return invalid(format!("the temperature {temperature} is not a number"));
        }
        if let Some(preferences) = &self.model_preferences {
            preferences.check().map_err(SampleError::InvalidRequest)?;
        }
        let uses_tools = !self.tools.is_empty()
            || self.tool_choice.is_some()
            || self.messages.iter().any(|message| {
                message.content.iter().any(|block| {
                    matches!(
                        block,
                        SampleContent::ToolUse(_) | SampleContent::ToolResult(_)
                    )
                })
            });
        if uses_tools && !features.tools {
            return Err(SampleError::ToolsUnsupported);
        }
        if matches!(
            self.include_context,
            Some(IncludeContext::ThisServer | IncludeContext::AllServers)
        ) && !features.context
        {
            return Err(SampleError::ContextUnsupported);
        }
        if self.tool_choice.is_some() && self.tools.is_empty() {
            return invalid(
                "it has a tool choice and no tools: offer the model tools with `.tool(…)`".into(),
            );
        }
        let mut names = HashSet::new();
        for tool in &self.tools {
            let name = tool.name().unwrap_or_default();
            if !names.insert(name) {
                return invalid(format!("the tool `{name}` is offered twice"));
            }
        }
        self.check_messages().map_err(SampleError::InvalidRequest)
    }

    /// The messages as MCP wants them: content in each; tool uses said by the assistant, each
    /// answered by a tool result of the user (a message of tool results holding nothing else),
    /// and no result without its use; images and audio in base64.
    fn check_messages(&self) -> Result<(), String> {
        let mut unanswered: Vec<&str> = Vec::new();
        let mut ids = HashSet::new();
        for (index, message) in self.messages.iter().enumerate() {
            let at = format!("message {index}");
            if message.content.is_empty() {
                return Err(format!("{at} has no content"));
            }
            let results = message
                .content
                .iter()
                .filter(|block| matches!(block, SampleContent::ToolResult(_)))
                .count();
            if results > 0 && results < message.content.len() {
                return Err(format!(
                    "{at} mixes tool results with other content: a message of tool results \
                     holds nothing else"
                ));
            }
            for block in &message.content {
                match (block, message.role) {
                    (SampleContent::ToolUse(SampleToolUse { id, .. }), Role::Assistant) => {
                        if !ids.insert(id.as_str()) {
                            return Err(format!("the tool use `{id}` appears twice"));
                        }
                        unanswered.push(id);
                    }
                    (SampleContent::ToolUse(_), Role::User) => {
                        return Err(format!(
                            "{at}: a tool use is the assistant's, not the user's"
                        ));
                    }
                    (SampleContent::ToolResult(result), Role::User) => {
                        let id = result.tool_use_id.as_str();
                        let Some(position) = unanswered.iter().position(|open| *open == id) else {
                            return Err(format!(
                                "{at}: the tool result for `{id}` answers no tool use before it"
                            ));
                        };
                        unanswered.remove(position);
                    }
                    (SampleContent::ToolResult(_), Role::Assistant) => {
                        return Err(format!(
                            "{at}: a tool result is the user's, not the assistant's"
                        ));
                    }
                    (
                        SampleContent::Image { data, mime_type }
                        | SampleContent::Audio { data, mime_type },
                        _,
                    ) => {
                        if mime_type.trim().is_empty() {
                            return Err(format!("{at}: an image or audio block has no MIME type"));
                        }
                        if base64::engine::general_purpose::STANDARD
                            .decode(data)
                            .is_err()
                        {
                            return Err(format!(
                                "{at}: the {mime_type} data is not base64 (use \
                                 `SampleContent::image_bytes` or `audio_bytes` for raw bytes)"
                            ));
                        }
                    }
                    (SampleContent::Text(_), _) => {}
                }
            }
        }
        if !unanswered.is_empty() {
            return Err(format!(
                "the tool use `{}` has no tool result after it",
                unanswered.join("`, `")
            ));
        }
        Ok(())
    }
}

/// One message of a sampling conversation: what the user or the assistant said.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SampleMessage {
    /// Who says it.
    pub role: Role,
    /// What is said, in order (at least one block).
    pub content: Vec<SampleContent>,
}

impl SampleMessage {
    /// A message of `role` made of `content`.
    pub fn new(role: Role, content: impl IntoIterator<Item = SampleContent>) -> SampleMessage {
        SampleMessage {
            role,
            content: content.into_iter().collect(),
        }
    }

    /// A message of the user: text (`&str`, `String`) or any [`SampleContent`].
    pub fn user(content: impl Into<SampleContent>) -> SampleMessage {
        SampleMessage::new(Role::User, [content.into()])
    }

    /// A message of the assistant.
    pub fn assistant(content: impl Into<SampleContent>) -> SampleMessage {
        SampleMessage::new(Role::Assistant, [content.into()])
    }

    /// The user's message that answers the model's tool uses, one result each.
    pub fn tool_results(results: impl IntoIterator<Item = SampleToolResult>) -> SampleMessage {
        SampleMessage::new(
            Role::User,
            results.into_iter().map(SampleContent::ToolResult),
        )
    }

    fn to_mcp(&self) -> Value {
        let content = match self.content.as_slice() {
            [one] => one.to_mcp(),
            several => several.iter().map(SampleContent::to_mcp).collect(),
        };
        json!({ "role": self.role.as_str(), "content": content })
    }
}

/// One block of a sampling message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SampleContent {
    /// Text.
    Text(String),
    /// An image, base64-encoded.
    Image {
        /// The base64 data.
        data: String,
        /// Its MIME type, e.g. `image/png`.
        mime_type: String,
    },
    /// Audio, base64-encoded.
    Audio {
        /// The base64 data.
        data: String,
        /// Its MIME type, e.g. `audio/wav`.
        mime_type: String,
    },
    /// The model calls a tool (the assistant's).
    ToolUse(SampleToolUse),
    /// What a tool gave back (the user's, answering a tool use).
    ToolResult(SampleToolResult),
}

impl SampleContent {
    /// An image whose data is already base64.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> SampleContent {
        SampleContent::Image {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// An image from its bytes (encoded here).
    pub fn image_bytes(bytes: &[u8], mime_type: impl Into<String>) -> SampleContent {
        SampleContent::image(
            base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type,
        )
    }

    /// Audio whose data is already base64.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> SampleContent {
        SampleContent::Audio {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// Audio from its bytes (encoded here).
    pub fn audio_bytes(bytes: &[u8], mime_type: impl Into<String>) -> SampleContent {
        SampleContent::audio(
            base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type,
        )
    }

    /// The block as MCP writes it (`{"type": "text", "text": …}`, `image`, `audio`,
    /// `tool_use`, `tool_result`).
    pub fn to_mcp(&self) -> Value {
        match self {
            SampleContent::Text(text) => json!({ "type": "text", "text": text }),
            SampleContent::Image { data, mime_type } => {
                json!({ "type": "image", "data": data, "mimeType": mime_type })
            }
            SampleContent::Audio { data, mime_type } => {
                json!({ "type": "audio", "data": data, "mimeType": mime_type })
            }
            SampleContent::ToolUse(SampleToolUse { id, name, input }) => {
                json!({ "type": "tool_use", "id": id, "name": name, "input": input })
            }
            SampleContent::ToolResult(result) => {
                let content: Vec<Value> = result.content.iter().map(Content::to_mcp).collect();
                let mut block = json!({
                    "type": "tool_result",
                    "toolUseId": result.tool_use_id,
                    "content": content,
                });
                if let Some(structured) = &result.structured {
                    block["structuredContent"] = structured.clone();
                }
                if result.is_error {
                    block["isError"] = true.into();
                }
                block
            }
        }
    }

    /// What the block is, in a few words (for messages).
    pub(super) fn describe(&self) -> String {
        match self {
            SampleContent::Text(_) => "text".into(),
            SampleContent::Image { mime_type, .. } => format!("an image, {mime_type}"),
            SampleContent::Audio { mime_type, .. } => format!("audio, {mime_type}"),
            SampleContent::ToolUse(tool_use) => format!("a call of the tool `{}`", tool_use.name),
            SampleContent::ToolResult(_) => "a tool result".into(),
        }
    }
}

impl From<String> for SampleContent {
    fn from(text: String) -> SampleContent {
        SampleContent::Text(text)
    }
}

impl From<&str> for SampleContent {
    fn from(text: &str) -> SampleContent {
        SampleContent::Text(text.to_owned())
    }
}

impl From<SampleToolResult> for SampleContent {
    fn from(result: SampleToolResult) -> SampleContent {
        SampleContent::ToolResult(result)
    }
}

/// The model's call of a tool it was offered.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SampleToolUse {
    /// The call's id, which its [`SampleToolResult`] names.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Its arguments.
    pub input: Map<String, Value>,
}

impl SampleToolUse {
    /// A call of `name` with `input`, under `id`.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        input: Map<String, Value>,
    ) -> SampleToolUse {
        SampleToolUse {
            id: id.into(),
            name: name.into(),
            input,
        }
    }

    /// Runs the call on `tools` (those offered with [`SampleTool::all_of`]) and gives its
    /// result for the model: the output, or the error in the words the model reads.
    pub async fn run(&self, tools: &ToolSet) -> SampleToolResult {
        let outcome = tools
            .call(&self.name, Value::Object(self.input.clone()))
            .await;
        let output_schema = tools
            .definition(&self.name)
            .and_then(|definition| definition.render(Target::Mcp).ok())
            .and_then(|rendering| match &rendering.tool {
                TargetTool::Mcp(tool) => tool.output_schema.clone(),
                _ => None,
            });
        match outcome {
            Ok(output) => SampleToolResult {
                tool_use_id: self.id.clone(),
                content: output.content,
                structured: output.structured.map(|value| {
                    McpOutputRules::ObjectOnly.structured_content(output_schema.as_ref(), value)
                }),
                is_error: false,
            },
            Err(error) => SampleToolResult::error(self.id.clone(), error.to_string()),
        }
    }
}

/// What a tool gave back, for the model: the answer to a [`SampleToolUse`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SampleToolResult {
    /// The id of the tool use it answers.
    pub tool_use_id: String,
    /// What the model reads.
    pub content: Vec<Content>,
    /// The structured result, for a tool with an output schema.
    pub structured: Option<Value>,
    /// Whether the tool failed (the content says why).
    pub is_error: bool,
}

impl SampleToolResult {
    /// A tool's output. Structured content that is not an object is sent as
    /// `{"result": value}`, the form every MCP version takes (MCP 2025-11-25 takes objects
    /// only), as the output schemas of [`SampleTool::from_definition`] say.
    pub fn new(tool_use_id: impl Into<String>, output: ToolOutput) -> SampleToolResult {
        SampleToolResult {
            tool_use_id: tool_use_id.into(),
            content: output.content,
            structured: output
                .structured
                .map(|value| McpOutputRules::ObjectOnly.structured_content(None, value)),
            is_error: false,
        }
    }

    /// A tool's failure, in words.
    pub fn error(tool_use_id: impl Into<String>, message: impl Into<String>) -> SampleToolResult {
        SampleToolResult {
            tool_use_id: tool_use_id.into(),
            content: vec![Content::Text(message.into())],
            structured: None,
            is_error: true,
        }
    }

    /// The outcome of running the tool ([`ToolSet::call`](crate::ToolSet::call)'s, say): its
    /// output, or its error in the words the model reads.
    pub fn from_outcome(
        tool_use_id: impl Into<String>,
        outcome: Result<ToolOutput, ToolError>,
    ) -> SampleToolResult {
        match outcome {
            Ok(output) => SampleToolResult::new(tool_use_id, output),
            Err(error) => SampleToolResult::error(tool_use_id, error.to_string()),
        }
    }
}

/// A tool the model may call: an MCP tool definition (`name`, `description`, `inputSchema`…).
#[derive(Debug, Clone, PartialEq)]
pub struct SampleTool(Map<String, Value>);

impl SampleTool {
    /// A tool named `name`, described by `description`, whose arguments `input_schema` (a JSON
    /// Schema object of `"type": "object"`) describes.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Result<SampleTool, SampleError> {
        let mut tool = Map::new();
        tool.insert("name".into(), name.into().into());
        tool.insert("description".into(), description.into().into());
        tool.insert("inputSchema".into(), input_schema);
        SampleTool::from_mcp(tool)
    }

    /// A tool as MCP writes it, checked to have a `name` and an object `inputSchema`.
    pub fn from_mcp(tool: Map<String, Value>) -> Result<SampleTool, SampleError> {
        let invalid = |why: &str| Err(SampleError::InvalidRequest(why.into()));
        match tool.get("name").and_then(Value::as_str) {
            Some(name) if !name.is_empty() => {}
            _ => return invalid("a tool for the model needs a name"),
        }
        match tool.get("inputSchema") {
            Some(Value::Object(schema)) if schema.get("type") == Some(&"object".into()) => {}
            _ => {
                return invalid(
                    "a tool's `inputSchema` must be a JSON Schema object of `\"type\": \"object\"`",
                );
            }
        }
        Ok(SampleTool(tool))
    }

    /// A tooldef tool, as its MCP rendering (`Add.definition()`, say), its output schema in the
    /// form every MCP version takes (an object; a tool returning another value says
    /// `{"result": value}`, as [`McpOutputRules::ObjectOnly`] writes it), since the request may
    /// go to a client of MCP 2025-11-25.
    pub fn from_definition(definition: &ToolDefinition) -> Result<SampleTool, SchemaError> {
        let Value::Object(tool) = definition.to_json(Target::Mcp)? else {
            unreachable!("an MCP rendering is an object")
        };
        Ok(SampleTool::object_outputs(tool))
    }

    /// Every tool of `tools`, as [`from_definition`](SampleTool::from_definition) gives
    /// each: run the model's calls with [`SampleToolUse::run`].
    pub fn all_of(tools: &ToolSet) -> Result<Vec<SampleTool>, ListError> {
        Ok(tools
            .list(Target::Mcp)?
            .iter()
            .filter_map(|tool| tool.as_object().cloned().map(SampleTool::object_outputs))
            .collect())
    }

    fn object_outputs(mut tool: Map<String, Value>) -> SampleTool {
        if let Some(Value::Object(schema)) = tool.get_mut("outputSchema") {
            *schema = McpOutputRules::ObjectOnly
                .output_schema(schema)
                .into_owned();
        }
        SampleTool(tool)
    }

    /// The tool's name.
    pub fn name(&self) -> Option<&str> {
        self.0.get("name").and_then(Value::as_str)
    }

    /// The tool as MCP writes it.
    pub fn as_mcp(&self) -> &Map<String, Value> {
        &self.0
    }
}

/// Which model the server would like; the client weighs it and chooses.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ModelPreferences {
    /// Model names or families, most preferred first (`"claude-3-5-sonnet"`, `"claude"`).
    pub hints: Vec<String>,
    /// How much cost matters, from 0 to 1.
    pub cost_priority: Option<f64>,
    /// How much speed matters, from 0 to 1.
    pub speed_priority: Option<f64>,
    /// How much capability matters, from 0 to 1.
    pub intelligence_priority: Option<f64>,
}

impl ModelPreferences {
    /// No preference yet.
    pub fn new() -> ModelPreferences {
        ModelPreferences::default()
    }

    /// Adds a model name or family the server would like (the first added is preferred).
    #[must_use]
    pub fn hint(mut self, name: impl Into<String>) -> ModelPreferences {
        self.hints.push(name.into());
        self
    }

    /// How much cost matters, from 0 (not at all) to 1 (most).
    #[must_use]
    pub fn cost(mut self, priority: f64) -> ModelPreferences {
        self.cost_priority = Some(priority);
        self
    }

    /// How much speed matters, from 0 to 1.
    #[must_use]
    pub fn speed(mut self, priority: f64) -> ModelPreferences {
        self.speed_priority = Some(priority);
        self
    }

    /// How much capability matters, from 0 to 1.
    #[must_use]
    pub fn intelligence(mut self, priority: f64) -> ModelPreferences {
        self.intelligence_priority = Some(priority);
        self
    }

    fn check(&self) -> Result<(), String> {
        for (name, priority) in [
            ("cost", self.cost_priority),
            ("speed", self.speed_priority),
            ("intelligence", self.intelligence_priority),
        ] {
            if let Some(priority) = priority
                && !(0.0..=1.0).contains(&priority)
            {
                return Err(format!(
                    "the {name} priority is {priority}, and a priority is from 0 to 1"
                ));
            }
        }
        Ok(())
    }

    fn to_mcp(&self) -> Value {
        let mut preferences = Map::new();
        if !self.hints.is_empty() {
            let hints = self.hints.iter().map(|name| json!({ "name": name }));
            preferences.insert("hints".into(), hints.collect());
        }
        for (key, priority) in [
            ("costPriority", self.cost_priority),
            ("speedPriority", self.speed_priority),
            ("intelligencePriority", self.intelligence_priority),
        ] {
            if let Some(priority) = priority {
                preferences.insert(key.into(), priority.into());
            }
        }
        Value::Object(preferences)
    }
}

/// Context from the client's MCP servers to add to a sampling request (MCP's
/// `includeContext`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncludeContext {
    /// None: the request as it is.
    None,
    /// From this server (needs the client's `sampling.context`).
    ThisServer,
    /// From every server the client is connected to (needs the client's `sampling.context`).
    AllServers,
}

impl IncludeContext {
    /// As MCP writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            IncludeContext::None => "none",
            IncludeContext::ThisServer => "thisServer",
            IncludeContext::AllServers => "allServers",
        }
    }
}

/// Whether and how the model calls the tools it is offered (MCP's `toolChoice.mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleToolChoice {
    /// The model decides.
    Auto,
    /// The model calls at least one.
    Required,
    /// The model calls none.
    None,
}

impl SampleToolChoice {
    /// As MCP writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            SampleToolChoice::Auto => "auto",
            SampleToolChoice::Required => "required",
            SampleToolChoice::None => "none",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool() -> SampleTool {
        SampleTool::new(
            "lookup",
            "Look a word up.",
            json!({"type": "object", "properties": {"word": {"type": "string"}}}),
        )
        .unwrap()
    }

    fn input() -> Map<String, Value> {
        json!({"word": "hello"}).as_object().unwrap().clone()
    }

    #[test]
    fn the_whole_request_as_mcp_writes_it() {
        let request = SampleRequest::new(100)
            .system_prompt("Be brief.")
            .user("Look up hello.")
            .message(SampleMessage::new(
                Role::Assistant,
                [SampleContent::ToolUse(SampleToolUse::new(
                    "t1",
                    "lookup",
                    input(),
                ))],
            ))
            .message(SampleMessage::tool_results([SampleToolResult::new(
                "t1",
                ToolOutput::text("a greeting"),
            )]))
            .message(SampleMessage::new(
                Role::User,
                [
                    SampleContent::image_bytes(b"png", "image/png"),
                    SampleContent::audio("d2F2", "audio/wav"),
                ],
            ))
            .model_preferences(ModelPreferences::new().hint("claude").cost(0.25).speed(0.5))
            .include_context(IncludeContext::ThisServer)
            .temperature(0.5)
            .stop_sequence("END")
            .tool(tool())
            .tool_choice(SampleToolChoice::Auto);
        assert_eq!(request.check(SampleFeatures::ALL), Ok(()));
        assert_eq!(
            request.to_mcp(),
            json!({
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Look up hello."}},
                    {"role": "assistant", "content": {"type": "tool_use", "id": "t1", "name": "lookup", "input": {"word": "hello"}}},
                    {"role": "user", "content": {"type": "tool_result", "toolUseId": "t1", "content": [{"type": "text", "text": "a greeting"}]}},
                    {"role": "user", "content": [
                        {"type": "image", "data": "cG5n", "mimeType": "image/png"},
                        {"type": "audio", "data": "d2F2", "mimeType": "audio/wav"}
                    ]}
                ],
                "systemPrompt": "Be brief.",
                "modelPreferences": {"hints": [{"name": "claude"}], "costPriority": 0.25, "speedPriority": 0.5},
                "includeContext": "thisServer",
                "temperature": 0.5,
                "maxTokens": 100,
                "stopSequences": ["END"],
                "tools": [{"name": "lookup", "description": "Look a word up.", "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}}}],
                "toolChoice": {"mode": "auto"}
            })
        );
    }

    #[test]
    fn requests_mcp_does_not_take_are_refused_with_the_reason() {
        let refused = |request: SampleRequest, said: &str| {
            let Err(SampleError::InvalidRequest(why)) = request.check(SampleFeatures::ALL) else {
                panic!("refused: {request:?}");
            };
            assert!(why.contains(said), "{said}: {why}");
        };
        refused(SampleRequest::new(10), "no messages");
        refused(SampleRequest::new(0).user("hi"), "`max_tokens` is 0");
        refused(
            SampleRequest::new(10).user("hi").temperature(f64::NAN),
            "not a number",
        );
        refused(
            SampleRequest::new(10)
                .user("hi")
                .model_preferences(ModelPreferences::new().intelligence(2.0)),
            "intelligence priority is 2",
        );
        refused(
            SampleRequest::new(10)
                .user("hi")
                .tool_choice(SampleToolChoice::Required),
            "no tools",
        );
        refused(
            SampleRequest::new(10).user("hi").tool(tool()).tool(tool()),
            "offered twice",
        );
        refused(
            SampleRequest::new(10).user(SampleContent::ToolUse(SampleToolUse::new(
                "t",
                "lookup",
                input(),
            ))),
            "the assistant's",
        );
        refused(
            SampleRequest::new(10)
                .user("hi")
                .assistant(SampleContent::ToolUse(SampleToolUse::new(
                    "t",
                    "lookup",
                    input(),
                ))),
            "no tool result after it",
        );
        refused(
            SampleRequest::new(10).message(SampleMessage::tool_results([SampleToolResult::error(
                "x", "no",
            )])),
            "answers no tool use",
        );
        refused(
            SampleRequest::new(10)
                .user("hi")
                .assistant(SampleContent::ToolUse(SampleToolUse::new(
                    "t",
                    "lookup",
                    input(),
                )))
                .message(SampleMessage::new(
                    Role::User,
                    [SampleToolResult::error("t", "no").into(), "and more".into()],
                )),
            "mixes tool results",
        );
        refused(
            SampleRequest::new(10).user(SampleContent::image("not base64!", "image/png")),
            "not base64",
        );
        refused(
            SampleRequest::new(10).message(SampleMessage::new(Role::User, [])),
            "no content",
        );
        assert!(matches!(
            SampleTool::new("x", "y", json!({"type": "string"})),
            Err(SampleError::InvalidRequest(_))
        ));
    }
}
