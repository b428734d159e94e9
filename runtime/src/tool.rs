//! The [`Tool`] trait and the canonical [`ToolDefinition`] every target is rendered from.

use std::borrow::Cow;
use std::future::Future;
use std::sync::OnceLock;

use schemars::Schema;
use serde::de::DeserializeOwned;

use serde_json::{Map, Value};

use crate::context::{CallContext, ContextError};
use crate::output::ReturnValue;
use crate::report::{Change, Place, Recorder};
use crate::targets::{Rendering, render};
use crate::{Profile, SchemaError, Target};

/// A tool: a name, a canonical definition, typed arguments and a function to call.
///
/// `#[tool]` implements it for a unit struct named after the function (`get_weather` →
/// `GetWeather`); implement it by hand only for what the macro cannot express.
///
/// ```
/// use tooldef::{Target, Tool, tool};
///
/// /// Add two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// // Code that takes any tool: its name, its definition for a target.
/// fn announce<T: Tool>(tool: &T) -> String {
///     let chat = tool.definition().to_json(Target::ChatCompletions).unwrap();
///     format!("{} takes {}", T::NAME, chat["function"]["parameters"]["required"])
/// }
///
/// assert_eq!(announce(&Add), r#"add takes ["a","b"]"#);
/// assert_eq!(add(2, 3), 5); // the function is still a function
/// ```
pub trait Tool: Send + Sync + 'static {
    /// The argument object the model sends, deserialised.
    type Args: DeserializeOwned + Send + 'static;
    /// What the function returns.
    type Output: Send + 'static;

    /// The tool's name on the wire.
    const NAME: &'static str;

    /// The canonical definition, computed on first use and then kept for the process.
    fn definition(&self) -> &'static ToolDefinition;

    /// The tool's Rust type as its user names it (`my_crate::tools::GetWeather`), for messages
    /// such as two tools of one name. `#[tool]` gives the path of the module it is in, not that
    /// of the hidden module its type is declared in.
    fn type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }

    /// The application state its context parameters need ([`State<T>`](crate::State) needs a
    /// `T`), which [`ToolSetBuilder::build`](crate::ToolSetBuilder::build) checks was given.
    /// `#[tool]` lists its parameters'; none by default.
    fn needed_state(&self) -> Vec<crate::NeededState> {
        Vec::new()
    }

    /// Calls the function with deserialised arguments; its context parameters are filled from
    /// `context`, which fails only when the server did not provide what a parameter needs.
    fn call(
        &self,
        args: Self::Args,
        context: CallContext,
    ) -> impl Future<Output = Result<Self::Output, ContextError>> + Send;

    /// Turns what the function returned into a return value, or into the tool's own error
    /// message (`Err` of a `Result`, shown to the model as a failure).
    fn output(output: Self::Output) -> Result<ReturnValue, String>;
}

/// The whole-struct form of a tool's arguments: `Args(args): Args<SearchArgs>` takes the complete
/// argument object as one type that derives `Deserialize + JsonSchema`.
///
/// The type's serde attributes (`rename_all`, `default`, `skip`, enum representations) are
/// honoured, and its doc comments describe the properties. Like any argument type of a portable
/// tool, it derives [`Portable`](macro@crate::Portable) too.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use tooldef::{Args, Portable, Target, Tool, tool};
///
/// #[derive(Deserialize, JsonSchema, Portable)]
/// struct Range {
///     /// The first number.
///     from: u32,
///     /// The last number.
///     to: u32,
/// }
///
/// /// Sum the numbers of a range.
/// #[tool]
/// fn sum(Args(range): Args<Range>) -> u32 {
///     (range.from..=range.to).sum()
/// }
///
/// let mcp = Sum.definition().to_json(Target::Mcp).unwrap();
/// assert_eq!(mcp["inputSchema"]["required"], serde_json::json!(["from", "to"]));
/// assert_eq!(sum(Args(Range { from: 1, to: 4 })), 10);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Args<T>(pub T);

/// Hints about a tool's behaviour, as MCP defines them. `None` leaves a hint unsaid (MCP's
/// defaults then apply: not read-only, destructive, not idempotent, open world).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ToolAnnotations {
    /// A human-readable title, for display (MCP `annotations.title`; the tool's own `title`
    /// takes precedence where both are given).
    pub title: Option<Cow<'static, str>>,
    /// The tool does not modify its environment.
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (meaningful when not read-only).
    pub destructive_hint: Option<bool>,
    /// Calling the tool again with the same arguments has no further effect.
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// Whether no hint is given.
    pub fn is_empty(&self) -> bool {
        *self == ToolAnnotations::default()
    }
}

/// What to do with a type that contains itself, for a target that has no `$ref` (Gemini).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum RecursionPolicy {
    /// Refuse to render it: [`SchemaError::Recursive`]. The default for Rust tools, whose
    /// author can bound the nesting with distinct types.
    #[default]
    Refuse,
    /// Write the type out as far as it goes and describe it in words where it recurs, with a
    /// [`ChangeKind::RecursionCut`](crate::report::ChangeKind::RecursionCut) in the report. The
    /// policy for foreign tools, which must reach the model somehow.
    Describe,
}

/// The canonical definition of a tool: what every target's rendering is made from.
///
/// The input schema is JSON Schema draft 2020-12 as schemars generates it (properties in
/// declaration order, `$defs` kept, `default` recorded), without `$schema` and the root `title`.
/// Renderings for each target are computed on first use and cached.
///
/// An input schema its author wrote ([`ToolDefinitionBuilder::input_schema`], as a `Tool`
/// implemented by hand gives it) is also kept as written: MCP clients are shown it and calls
/// are validated against it (MCP SEP-1613: `$schema`, `$defs`/`$ref`, open objects and every
/// other keyword kept), while the other targets are rendered from its canonical form. A schema
/// tooldef made (`#[tool]`'s, from the argument types) has no written form.
///
/// `#[tool]` makes one for each tool ([`Tool::definition`]); a tool implemented by hand makes its
/// own with [`ToolDefinition::builder`]:
///
/// ```
/// use tooldef::{Target, ToolDefinition};
///
/// let definition = ToolDefinition::builder("get_time")
///     .description("The current time in a time zone.")
///     .input_schema(schemars::json_schema!({
///         "type": "object",
///         "properties": {"zone": {"type": "string", "default": "UTC"}}
///     }))
///     .build();
/// assert_eq!(definition.name(), "get_time");
/// // Gemini's `parameters` have no `default`: it is said in words.
/// let gemini = definition.to_json(Target::Gemini).unwrap();
/// let zone = &gemini["parameters"]["properties"]["zone"];
/// assert!(zone.get("default").is_none());
/// assert!(zone["description"].as_str().unwrap().contains("UTC"));
/// ```
#[derive(Debug)]
pub struct ToolDefinition {
    name: Cow<'static, str>,
    title: Option<Cow<'static, str>>,
    description: Option<Cow<'static, str>>,
    input_schema: Schema,
    /// The input schema as its author wrote it, when they did.
    written_input: Option<WrittenSchema>,
    output_schema: Option<Schema>,
    annotations: ToolAnnotations,
    strict: bool,
    recursion: RecursionPolicy,
    icons: Option<Value>,
    meta: Option<Map<String, Value>>,
    other_mcp_fields: Map<String, Value>,
    task: bool,
    /// Example arguments, each an object the input schema accepts.
    examples: Vec<Map<String, Value>>,
    /// Loaded only when the model searches for it, where the target can say so.
    defer_loading: bool,
    /// What making the schemas canonical changed, at the start of every rendering's report.
    canonical_changes: Vec<Change>,
    renderings: [OnceLock<Result<Rendering, SchemaError>>; Target::ALL.len()],
    /// The validator of `output_schema`, built the first time a result needs checking.
    output_validator: OnceLock<Option<jsonschema::Validator>>,
}

impl ToolDefinition {
    /// Starts a definition of the tool `name`.
    pub fn builder(name: impl Into<Cow<'static, str>>) -> ToolDefinitionBuilder {
        ToolDefinitionBuilder {
            name: name.into(),
            title: None,
            description: None,
            input_schema: None,
            written_input: None,
            output_schema: None,
            annotations: ToolAnnotations::default(),
            strict: true,
            recursion: RecursionPolicy::default(),
            icons: None,
            meta: None,
            other_mcp_fields: Map::new(),
            task: false,
            examples: Vec::new(),
            defer_loading: false,
            canonical_changes: Vec::new(),
        }
    }

    /// The tool's name on the wire.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A human-readable title, for display.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// What the tool does, for the model.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The canonical input schema (draft 2020-12, root `"type": "object"`), which every target
    /// but MCP is rendered from. For a schema its author wrote, its canonical form (`$schema`
    /// and the root `title` dropped, an older draft said in 2020-12); for one that is not valid
    /// JSON Schema, the schema as given, from which nothing is rendered.
    pub fn input_schema(&self) -> &Schema {
        &self.input_schema
    }

    /// The input schema as its author wrote it ([`ToolDefinitionBuilder::input_schema`]): what
    /// MCP clients are shown (with a root `"type": "object"` added where it has none, which MCP
    /// requires) and what calls are validated against. `None` for a schema tooldef made:
    /// `#[tool]`'s, and a foreign tool's converted by [`convert`](crate::convert).
    ///
    /// ```
    /// use schemars::json_schema;
    /// use tooldef::{Target, ToolDefinition};
    ///
    /// let written = json_schema!({
    ///     "$schema": "https://json-schema.org/draft/2020-12/schema",
    ///     "type": "object",
    ///     "properties": {"address": {"$ref": "#/$defs/address"}},
    ///     "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}}}}
    /// });
    /// let definition = ToolDefinition::builder("ship")
    ///     .input_schema(written.clone())
    ///     .build();
    /// assert_eq!(definition.written_input_schema(), Some(&written));
    /// let mcp = definition.to_json(Target::Mcp).unwrap();
    /// assert_eq!(mcp["inputSchema"], *written.as_value());
    /// // The other targets keep their own rules: OpenAI's inlines the `$ref` and closes objects.
    /// let chat = definition.to_json(Target::ChatCompletions).unwrap();
    /// let address = &chat["function"]["parameters"]["properties"]["address"];
    /// assert_eq!(address["additionalProperties"], false);
    /// ```
    pub fn written_input_schema(&self) -> Option<&Schema> {
        self.written_input.as_ref().map(|written| &written.schema)
    }

    /// Why the input schema its author wrote is not valid JSON Schema in the dialect it
    /// declares, one reason per fault with its JSON Pointer; empty when it is valid (and for a
    /// schema tooldef made). A definition with faults renders for no target.
    pub(crate) fn written_faults(&self) -> &[String] {
        self.written_input
            .as_ref()
            .map_or(&[], |written| &written.faults)
    }

    /// The canonical output schema, when the tool's return type has one that says something
    /// about the value: any root (an object, an array, a string…). What MCP clients of each
    /// protocol version see is in [`McpOutputRules`](crate::targets::McpOutputRules).
    pub fn output_schema(&self) -> Option<&Schema> {
        self.output_schema.as_ref()
    }

    /// Behaviour hints.
    pub fn annotations(&self) -> &ToolAnnotations {
        &self.annotations
    }

    /// Whether the tool asks for strict rendering (OpenAI and Anthropic `strict: true`).
    pub fn strict(&self) -> bool {
        self.strict
    }

    /// What rendering does with a recursive type for a target without `$ref`.
    pub fn recursion(&self) -> RecursionPolicy {
        self.recursion
    }

    /// MCP `icons`, as given (kept in the MCP rendering only).
    pub fn icons(&self) -> Option<&Value> {
        self.icons.as_ref()
    }

    /// MCP `_meta`, as given (kept in the MCP rendering only).
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.meta.as_ref()
    }

    /// Whether the tool may run as an MCP task (the `io.modelcontextprotocol/tasks` extension
    /// of MCP 2026-07-28): a call the server may answer with a task to poll rather than the
    /// result, for a tool that takes long. Set by `#[tool(task)]` or
    /// [`ToolDefinitionBuilder::runs_as_task`]; `false` by default. The definition only carries
    /// it: running the call as a task is the MCP server's part.
    pub fn runs_as_task(&self) -> bool {
        self.task
    }

    /// Example arguments, each a JSON object of the tool's arguments: written with
    /// `#[tool(example(…))]` (type-checked as the function's own arguments), given to
    /// [`ToolDefinitionBuilder::example`], or read from a foreign MCP tool (its input schema's
    /// root `examples`, or `_meta.examples`).
    ///
    /// Anthropic is sent them as `input_examples`, MCP as the input schema's root `examples`;
    /// the other targets read them at the end of the description, as many as fit its limit.
    /// [`ToolSetBuilder::build`](crate::ToolSetBuilder::build) refuses a set with an example its
    /// tool's schema refuses.
    pub fn examples(&self) -> &[Map<String, Value>] {
        &self.examples
    }

    /// Whether the tool is loaded only when the model searches for it: rendered with
    /// `defer_loading: true` for the targets that take it (Responses, Anthropic), which then
    /// need a tool-search tool in the request. The other targets list it as any other tool.
    pub fn defer_loading(&self) -> bool {
        self.defer_loading
    }

    /// The input schema, given up by a definition that is rendered once and then thrown away
    /// (what is left is the schema of a tool without arguments).
    pub(crate) fn take_input_schema(&mut self) -> Schema {
        std::mem::take(&mut self.input_schema)
    }

    /// Fields of an MCP tool that tooldef does not model, passed on in the MCP rendering.
    pub fn other_mcp_fields(&self) -> &Map<String, Value> {
        &self.other_mcp_fields
    }

    /// What making the schemas canonical changed (the removed `$schema`, say): the start of
    /// every rendering's report.
    pub(crate) fn canonical_changes(&self) -> &[Change] {
        &self.canonical_changes
    }

    /// The `null`s of a result where its output schema wants something else, which clients
    /// check (the MCP Python client refuses the whole result): serde_json writes a NaN or
    /// infinite number as `null`. Checked only when the result holds a `null`.
    pub(crate) fn output_problems(&self, value: &Value) -> Vec<crate::ArgumentProblem> {
        if !crate::arguments::has_null(value) {
            return Vec::new();
        }
        let Some(validator) = self.output_validator() else {
            return Vec::new();
        };
        validator
            .iter_errors(value)
            .filter(|e| e.instance().is_null())
            .flat_map(|e| crate::arguments::validation_problems(&e))
            .collect()
    }

    /// Everything else in a result that its output schema refuses: the return type's
    /// `Serialize` and `JsonSchema` disagree (a `#[serde(with)]`, an impl written by hand).
    /// Checked in debug builds only, where a developer sees it: a release build sends the result
    /// and leaves the client to check it. In the validator's words, not the arguments' ones
    /// (no "argument" is missing from a result).
    pub(crate) fn output_mismatches(&self, value: &Value) -> Vec<String> {
        if !cfg!(debug_assertions) {
            return Vec::new();
        }
        let Some(validator) = self.output_validator() else {
            return Vec::new();
        };
        if validator.is_valid(value) {
            return Vec::new();
        }
        validator
            .iter_errors(value)
            .map(|e| format!("at `{}`: {e}", e.instance_path()))
            .collect()
    }

    fn output_validator(&self) -> Option<&jsonschema::Validator> {
        let schema = self.output_schema.as_ref()?;
        self.output_validator
            .get_or_init(|| {
                jsonschema::draft202012::options()
                    .build(schema.as_value())
                    .ok()
            })
            .as_ref()
    }

    /// The tool rendered for `target` under its own name: computed once, then served from the
    /// cache.
    pub fn render(&self, target: Target) -> Result<&Rendering, SchemaError> {
        let slot = &self.renderings[target as usize];
        slot.get_or_init(|| render(self, target, self.name(), Profile::Documented))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The tool rendered for `target` under another name (one the target accepts, where it
    /// refuses the tool's own), reported as a
    /// [`ChangeKind::Renamed`](crate::report::ChangeKind::Renamed). Not cached.
    pub fn render_as(&self, target: Target, name: &str) -> Result<Rendering, SchemaError> {
        render(self, target, name, Profile::Documented)
    }

    /// The tool rendered for `target` as a model of `profile` takes it (see
    /// [`Target::for_model`]): what the profile refuses said in words. Cached for
    /// [`Profile::Documented`], and for profiles that do not concern `target`; computed each
    /// time otherwise.
    pub fn render_for(
        &self,
        target: Target,
        profile: Profile,
    ) -> Result<Cow<'_, Rendering>, SchemaError> {
        if profile.applies_to(target) {
            render(self, target, self.name(), profile).map(Cow::Owned)
        } else {
            self.render(target).map(Cow::Borrowed)
        }
    }

    /// The tool rendered for `target`, as JSON.
    pub fn to_json(&self, target: Target) -> Result<serde_json::Value, SchemaError> {
        Ok(self.render(target)?.to_json())
    }
}

/// Builds a [`ToolDefinition`]; see [`ToolDefinition::builder`].
///
/// ```
/// use tooldef::{Target, ToolAnnotations, ToolDefinition};
///
/// let definition = ToolDefinition::builder("delete_file")
///     .title("Delete a file")
///     .description("Delete a file from the workspace.")
///     .annotations(ToolAnnotations { destructive_hint: Some(true), ..Default::default() })
///     .build(); // no input schema: the tool takes no arguments
/// let mcp = definition.to_json(Target::Mcp).unwrap();
/// assert_eq!(mcp["title"], "Delete a file");
/// assert_eq!(mcp["annotations"]["destructiveHint"], true);
/// assert_eq!(mcp["inputSchema"]["type"], "object");
/// ```
#[derive(Debug)]
#[must_use]
pub struct ToolDefinitionBuilder {
    name: Cow<'static, str>,
    title: Option<Cow<'static, str>>,
    description: Option<Cow<'static, str>>,
    input_schema: Option<Schema>,
    written_input: Option<WrittenSchema>,
    output_schema: Option<Schema>,
    annotations: ToolAnnotations,
    strict: bool,
    recursion: RecursionPolicy,
    icons: Option<Value>,
    meta: Option<Map<String, Value>>,
    other_mcp_fields: Map<String, Value>,
    task: bool,
    examples: Vec<Map<String, Value>>,
    defer_loading: bool,
    canonical_changes: Vec<Change>,
}

impl ToolDefinitionBuilder {
    /// A human-readable title.
    pub fn title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What the tool does, for the model. An empty description counts as none.
    pub fn description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        let description = description.into();
        self.description = (!description.trim().is_empty()).then_some(description);
        self
    }

    /// The input schema, as its author wrote it: JSON Schema of the dialect its `$schema`
    /// declares (2020-12 without one, as MCP says), root an object.
    ///
    /// MCP clients are shown it as written (`$schema`, `$defs`/`$ref`, open objects and every
    /// other keyword kept; only a root `"type": "object"`, which MCP requires, is added where
    /// it is missing, and the MCP rendering's report says so), and calls are validated against
    /// it in its dialect, `$ref`s resolved within it. The other targets are rendered from its
    /// canonical form by their own rules: its `$schema` and root `title` dropped, an older
    /// draft's keywords said in 2020-12, a closed object root without `properties` given an
    /// empty one, and then each target's transforms; their reports say what changed.
    ///
    /// A schema that is not valid JSON Schema in its dialect (checked against the dialect's
    /// meta-schema, then compiled: a `pattern` that is no regular expression, a `$ref` to
    /// nothing) renders for no target: [`SchemaError::InvalidSchema`] says where and why.
    pub fn input_schema(mut self, schema: Schema) -> Self {
        let faults = crate::schema::written_faults(schema.as_value());
        if faults.is_empty() {
            let mut rec = Recorder::default();
            let canonical = crate::schema::canonicalize(schema.clone(), &mut rec);
            self.set_canonical_input(canonical, rec);
        } else {
            // Nothing is rendered from it: canonicalising a schema that means nothing would
            // only risk saying something else.
            self.set_canonical_input(schema.clone(), Recorder::default());
        }
        self.written_input = Some(WrittenSchema {
            schema,
            faults: faults
                .into_iter()
                .map(|(at, what)| match at.as_str() {
                    "" => what,
                    at => format!("at `{at}`: {what}"),
                })
                .collect(),
        });
        self
    }

    /// The input schema of a tool whose schema tooldef made (`#[tool]`'s, from the argument
    /// types; a converted foreign tool's, already checked against its dialect): made canonical
    /// and rendered for every target, MCP included, through the target's transforms.
    pub(crate) fn canonical_input_schema(mut self, schema: Schema) -> Self {
        let mut rec = Recorder::default();
        let canonical = crate::schema::canonicalize(schema, &mut rec);
        self.set_canonical_input(canonical, rec);
        self.written_input = None;
        self
    }

    /// A change made before rendering (an example of a foreign tool left out), at the start
    /// of every rendering's report.
    pub(crate) fn canonical_change(mut self, change: Change) -> Self {
        self.canonical_changes.push(change);
        self
    }

    /// Sets the canonical input schema and what making it canonical changed.
    fn set_canonical_input(&mut self, canonical: Schema, mut rec: Recorder) {
        self.input_schema = Some(canonical);
        self.canonical_changes
            .retain(|change| change.place != Place::Input);
        self.canonical_changes.extend(rec.take(Place::Input));
    }

    /// The output schema, whatever its root (an object, an array, a string…). A schema that
    /// promises nothing (`true`, `{}`, one with annotations only) or only `null` (a function
    /// returning `()`) is no output schema: there is nothing to structure.
    ///
    /// MCP 2026-07-28 takes any JSON Schema as `outputSchema`; for clients of earlier versions,
    /// which take only an object, the MCP server wraps a schema whose root is not an object (see
    /// [`McpOutputRules`](crate::targets::McpOutputRules)).
    pub fn output_schema(mut self, schema: Option<Schema>) -> Self {
        let mut rec = Recorder::default();
        self.output_schema = schema
            .map(|schema| crate::schema::canonicalize_output(schema, &mut rec))
            .filter(promises_something);
        self.canonical_changes
            .retain(|change| change.place != Place::Output);
        if self.output_schema.is_some() {
            self.canonical_changes.extend(rec.take(Place::Output));
        }
        self
    }

    /// Behaviour hints.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Whether to render strictly where a target has a strict mode (default `true`).
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// What rendering does with a recursive type for a target without `$ref` (default
    /// [`RecursionPolicy::Refuse`]).
    pub fn recursion(mut self, recursion: RecursionPolicy) -> Self {
        self.recursion = recursion;
        self
    }

    /// MCP `icons` (an array of `{src, mimeType?, sizes?, theme?}`), sent in the MCP rendering.
    pub fn icons(mut self, icons: Value) -> Self {
        self.icons = Some(icons);
        self
    }

    /// MCP `_meta`, sent in the MCP rendering.
    pub fn meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// A field of an MCP tool that tooldef does not model (`execution`, say), passed on as it
    /// is in the MCP rendering.
    pub fn other_mcp_field(mut self, key: impl Into<String>, value: Value) -> Self {
        self.other_mcp_fields.insert(key.into(), value);
        self
    }

    /// Whether the tool may run as an MCP task (default `false`); see
    /// [`ToolDefinition::runs_as_task`].
    pub fn runs_as_task(mut self, yes: bool) -> Self {
        self.task = yes;
        self
    }

    /// Adds an example of the tool's arguments; see [`ToolDefinition::examples`].
    ///
    /// ```
    /// use serde_json::json;
    /// use tooldef::{Target, ToolDefinition};
    ///
    /// let definition = ToolDefinition::builder("get_weather")
    ///     .description("The weather in a city.")
    ///     .input_schema(schemars::json_schema!({
    ///         "type": "object",
    ///         "properties": {"city": {"type": "string"}},
    ///         "required": ["city"]
    ///     }))
    ///     .example(json!({"city": "Paris"}).as_object().unwrap().clone())
    ///     .build();
    /// let anthropic = definition.to_json(Target::Anthropic).unwrap();
    /// assert_eq!(anthropic["input_examples"], json!([{"city": "Paris"}]));
    /// let chat = definition.to_json(Target::ChatCompletions).unwrap();
    /// let description = chat["function"]["description"].as_str().unwrap();
    /// assert!(description.ends_with("{\"city\":\"Paris\"}"), "{description}");
    /// ```
    pub fn example(mut self, arguments: Map<String, Value>) -> Self {
        self.examples.push(arguments);
        self
    }

    /// Whether the tool is loaded only when the model searches for it (default `false`); see
    /// [`ToolDefinition::defer_loading`].
    pub fn defer_loading(mut self, defer: bool) -> Self {
        self.defer_loading = defer;
        self
    }

    /// The definition. Without an input schema the tool takes no arguments.
    pub fn build(self) -> ToolDefinition {
        let input_schema = self
            .input_schema
            .unwrap_or_else(|| schemars::json_schema!({ "type": "object", "properties": {} }));
        ToolDefinition {
            name: self.name,
            title: self.title,
            description: self.description,
            input_schema,
            written_input: self.written_input,
            output_schema: self.output_schema,
            annotations: self.annotations,
            strict: self.strict,
            recursion: self.recursion,
            icons: self.icons,
            meta: self.meta,
            other_mcp_fields: self.other_mcp_fields,
            task: self.task,
            examples: self.examples,
            defer_loading: self.defer_loading,
            canonical_changes: self.canonical_changes,
            renderings: Default::default(),
            output_validator: OnceLock::new(),
        }
    }
}

/// An input schema as its author wrote it, with why it is not valid JSON Schema (empty when it
/// is), found once when the definition is built.
#[derive(Debug)]
struct WrittenSchema {
    schema: Schema,
    faults: Vec<String>,
}

/// Keywords that describe a value without constraining it.
const ANNOTATIONS: &[&str] = &[
    "$comment",
    "$defs",
    "$id",
    "definitions",
    "deprecated",
    "description",
    "examples",
    "readOnly",
    "title",
    "writeOnly",
];

/// Whether an output schema says something about the value: not a boolean schema, not
/// annotations alone, and not `{"type": "null"}` (the unit type's schema).
fn promises_something(schema: &Schema) -> bool {
    let Some(root) = schema.as_object() else {
        return false;
    };
    let only_null = root.get("type").and_then(Value::as_str) == Some("null");
    !only_null && root.keys().any(|key| !ANNOTATIONS.contains(&key.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ChangeKind;
    use schemars::json_schema;
    use serde_json::json;

    /// A schema as an author writes one: a dialect, a definition behind a `$ref`, a nested
    /// object left open, a root title and a keyword no target knows.
    fn shipping() -> Schema {
        json_schema!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Shipping",
            "type": "object",
            "$defs": {
                "address": {
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "address": {"$ref": "#/$defs/address"}
            },
            "additionalProperties": false,
            "x-internal": {"owner": "shipping"}
        })
    }

    fn input_changes(rendering: &Rendering) -> Vec<&Change> {
        rendering
            .report
            .changes()
            .iter()
            .filter(|c| c.place == Place::Input)
            .collect()
    }

    #[test]
    fn a_written_schema_reaches_mcp_as_written() {
        let definition = ToolDefinition::builder("ship")
            .input_schema(shipping())
            .build();
        let rendering = definition.render(Target::Mcp).unwrap();
        let shown = rendering.tool.input_schema().unwrap();
        assert_eq!(
            serde_json::to_string(shown).unwrap(),
            // The schema's own key order (schemars' `Serialize` would put `$defs` last).
            serde_json::to_string(shipping().as_value()).unwrap()
        );
        assert_eq!(
            shown["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert!(
            shown["$defs"]["address"]
                .get("additionalProperties")
                .is_none()
        );
        assert_eq!(
            shown["properties"]["address"],
            json!({"$ref": "#/$defs/address"})
        );
        assert!(
            input_changes(rendering).is_empty(),
            "{:?}",
            rendering.report
        );
    }

    #[test]
    fn other_targets_render_the_canonical_form_and_say_what_they_changed() {
        let definition = ToolDefinition::builder("ship")
            .input_schema(shipping())
            .build();
        assert!(
            definition
                .input_schema()
                .as_value()
                .get("$schema")
                .is_none()
        );
        for target in Target::ALL.into_iter().filter(|t| *t != Target::Mcp) {
            let rendering = definition.render(target).unwrap();
            let shown = rendering.tool.input_schema().unwrap();
            let text = serde_json::to_string(shown).unwrap();
            for gone in ["$schema", "$defs", "$ref", "\"Shipping\""] {
                assert!(!text.contains(gone), "{target}: {gone} in {text}");
            }
            let changes = input_changes(rendering);
            let removed = |keyword: &str| {
                changes.iter().any(|c| {
                    c.pointer.is_empty()
                        && matches!(&c.kind, ChangeKind::Removed { keyword: k, .. } if k == keyword)
                })
            };
            assert!(
                removed("$schema") && removed("title"),
                "{target}: {changes:?}"
            );
            assert!(
                changes.iter().any(|c| c.pointer == "/properties/address"
                    && matches!(&c.kind, ChangeKind::Inlined { reference } if reference == "#/$defs/address")),
                "{target}: {changes:?}"
            );
        }
        // OpenAI closes the open object, as strict mode wants, and says so.
        let chat = definition.render(Target::ChatCompletions).unwrap();
        let parameters = chat.tool.input_schema().unwrap();
        assert_eq!(
            parameters["properties"]["address"]["additionalProperties"],
            false
        );
        assert!(chat.tool.strict());
        assert!(
            input_changes(chat)
                .iter()
                .any(|c| c.pointer == "/properties/address"
                    && matches!(&c.kind, ChangeKind::Added { keyword, .. } if keyword == "additionalProperties")),
            "{:?}",
            chat.report
        );
    }

    #[test]
    fn a_generated_schema_keeps_the_canonical_mcp_rendering() {
        let definition = ToolDefinition::builder("ship")
            .canonical_input_schema(shipping())
            .build();
        assert!(definition.written_input_schema().is_none());
        let rendering = definition.render(Target::Mcp).unwrap();
        let shown = rendering.tool.input_schema().unwrap();
        assert!(shown.get("$schema").is_none() && shown.get("$defs").is_none());
        assert_eq!(
            shown["properties"]["address"]["additionalProperties"],
            false
        );
    }

    #[test]
    fn a_root_type_is_the_one_thing_added_for_mcp_and_it_is_reported() {
        let written = json_schema!({"properties": {"a": {"type": "string"}}});
        let definition = ToolDefinition::builder("t").input_schema(written).build();
        let rendering = definition.render(Target::Mcp).unwrap();
        assert_eq!(
            serde_json::to_string(rendering.tool.input_schema().unwrap()).unwrap(),
            r#"{"type":"object","properties":{"a":{"type":"string"}}}"#
        );
        let changes = input_changes(rendering);
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert!(matches!(&changes[0].kind, ChangeKind::Added { keyword, .. } if keyword == "type"));
    }

    #[test]
    fn an_invalid_written_schema_renders_for_no_target_and_says_where() {
        let definition = ToolDefinition::builder("t")
            .input_schema(json_schema!({
                "type": "object",
                "properties": {"a": {"type": "strnig"}},
                "required": ["a", "a"]
            }))
            .build();
        for target in Target::ALL {
            let error = definition.render(target).unwrap_err();
            let SchemaError::InvalidSchema { faults } = &error else {
                panic!("{target}: {error:?}");
            };
            assert!(
                faults.contains(
                    &"at `/properties/a/type`: `strnig` is not a type; did you mean `string`?"
                        .to_owned()
                ),
                "{faults:?}"
            );
            assert!(
                faults.contains(
                    &"at `/required`: `required` must name each property once, got `[\"a\",\"a\"]`"
                        .to_owned()
                ),
                "{faults:?}"
            );
            assert!(
                error
                    .to_string()
                    .starts_with("the input schema is not valid JSON Schema: at ")
            );
        }
        let dangling = ToolDefinition::builder("t")
            .input_schema(
                json_schema!({"type": "object", "properties": {"a": {"$ref": "#/$defs/nowhere"}}}),
            )
            .build();
        assert!(matches!(
            dangling.render(Target::Mcp),
            Err(SchemaError::InvalidSchema { .. })
        ));
    }

    #[test]
    fn an_older_draft_is_shown_to_mcp_in_its_own_dialect() {
        let written = json_schema!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}
            }
        });
        let definition = ToolDefinition::builder("t")
            .input_schema(written.clone())
            .build();
        let mcp = definition.to_json(Target::Mcp).unwrap();
        assert_eq!(mcp["inputSchema"], *written.as_value());
        // The canonical form, which the others render, says the tuple in 2020-12's keywords.
        let canonical = definition.input_schema().as_value();
        assert!(canonical.get("$schema").is_none());
        assert_eq!(
            canonical["properties"]["pair"]["prefixItems"],
            json!([{"type": "string"}, {"type": "integer"}])
        );
    }
}
