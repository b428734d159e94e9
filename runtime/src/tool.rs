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
#[derive(Debug)]
pub struct ToolDefinition {
    name: Cow<'static, str>,
    title: Option<Cow<'static, str>>,
    description: Option<Cow<'static, str>>,
    input_schema: Schema,
    output_schema: Option<Schema>,
    annotations: ToolAnnotations,
    strict: bool,
    recursion: RecursionPolicy,
    icons: Option<Value>,
    meta: Option<Map<String, Value>>,
    other_mcp_fields: Map<String, Value>,
    task: bool,
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
            output_schema: None,
            annotations: ToolAnnotations::default(),
            strict: true,
            recursion: RecursionPolicy::default(),
            icons: None,
            meta: None,
            other_mcp_fields: Map::new(),
            task: false,
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

    /// The canonical input schema (draft 2020-12, root `"type": "object"`).
    pub fn input_schema(&self) -> &Schema {
        &self.input_schema
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
        let Some(schema) = &self.output_schema else {
            return Vec::new();
        };
        if !crate::arguments::has_null(value) {
            return Vec::new();
        }
        let validator = self.output_validator.get_or_init(|| {
            jsonschema::draft202012::options()
                .build(schema.as_value())
                .ok()
        });
        validator.as_ref().map_or_else(Vec::new, |validator| {
            validator
                .iter_errors(value)
                .filter(|e| e.instance().is_null())
                .flat_map(|e| crate::arguments::validation_problems(&e))
                .collect()
        })
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
#[derive(Debug)]
#[must_use]
pub struct ToolDefinitionBuilder {
    name: Cow<'static, str>,
    title: Option<Cow<'static, str>>,
    description: Option<Cow<'static, str>>,
    input_schema: Option<Schema>,
    output_schema: Option<Schema>,
    annotations: ToolAnnotations,
    strict: bool,
    recursion: RecursionPolicy,
    icons: Option<Value>,
    meta: Option<Map<String, Value>>,
    other_mcp_fields: Map<String, Value>,
    task: bool,
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

    /// The input schema (JSON Schema 2020-12, root `"type": "object"`). Its `$schema` and root
    /// `title` are dropped, and a closed object root without `properties` gets an empty one;
    /// every rendering's report says so.
    pub fn input_schema(mut self, schema: Schema) -> Self {
        let mut rec = Recorder::default();
        self.input_schema = Some(crate::schema::canonicalize(schema, &mut rec));
        self.canonical_changes
            .retain(|change| change.place != Place::Input);
        self.canonical_changes.extend(rec.take(Place::Input));
        self
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
            .map(|schema| crate::schema::canonicalize(schema, &mut rec))
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
            output_schema: self.output_schema,
            annotations: self.annotations,
            strict: self.strict,
            recursion: self.recursion,
            icons: self.icons,
            meta: self.meta,
            other_mcp_fields: self.other_mcp_fields,
            task: self.task,
            canonical_changes: self.canonical_changes,
            renderings: Default::default(),
            output_validator: OnceLock::new(),
        }
    }
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
