//! [`ToolSet`]: tools registered once, listed for any target, and called by name.

use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::FutureExt;
use serde::Deserialize;
use serde_json::Value;

use crate::arguments::{
    self, Arguments, Leniency, Limits, Shape, Track, Tracked, TypeRanges, deserialize_problem,
    limit_problems,
};
use crate::completion::{CompletionRequest, Completions};
use crate::context::{CallContext, ContextError, NeededState};
use crate::output::{ReturnValue, ToolOutput};
use crate::prompt::Prompts;
use crate::resource::Resources;
use crate::targets::{
    CacheControl, Rendering, StrictBudget, StrictLimit, TargetTool, past_strict_limit,
};
use crate::{
    ArgumentProblem, BuildError, ListError, ModelTarget, Prompt, PromptDefinition, PromptError,
    PromptReply, Resource, ResourceContents, ResourceDefinition, ResourceError, SchemaError,
    StringArgs, Target, Tool, ToolDefinition, ToolError,
};

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A started call: the function's result, or the context it could not get.
type Invocation<'a> = BoxFuture<'a, Result<Result<ReturnValue, String>, ContextError>>;

/// A set of tools, built once and then shared: cloning is cheap, and it is `Send + Sync`.
///
/// ```
/// # use tooldef::{ToolSet, Target, tool};
/// /// Add two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// # tokio_test_block_on(async {
/// let tools = ToolSet::builder().tool(Add).build().unwrap();
/// let listed = tools.list(Target::ChatCompletions).unwrap();
/// assert_eq!(listed[0]["function"]["name"], "add");
/// let output = tools.call("add", r#"{"a": 2, "b": 40}"#).await.unwrap();
/// assert_eq!(output.to_text(), "42");
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Clone)]
pub struct ToolSet {
    inner: Arc<Inner>,
}

struct Inner {
    entries: Vec<Entry>,
    /// Names with their entry, sorted by name: a binary search over a few hundred names costs
    /// less than hashing one with SipHash.
    index: Vec<(&'static str, usize)>,
    context: CallContext,
    config: Config,
    listings: [OnceLock<Listing>; Target::ALL.len()],
    /// What an MCP server offers beside the tools.
    prompts: Prompts,
    resources: Resources,
}

/// A tool set rendered for one target: see [`ToolSet::listing`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Listing {
    /// The tools the target can express, in the order they were added.
    pub tools: Arc<[Value]>,
    /// The tools it cannot, each with why.
    pub refused: Vec<ListError>,
    /// The tools listed non-strict although they could be strict, because the strict tools
    /// before them reached one of the limits of one request (Anthropic's [`StrictLimit`]s: the
    /// first tools keep strict), each with that limit.
    pub past_strict_limits: Vec<(String, StrictLimit)>,
    /// The tool listed without `defer_loading` although it is deferred, because every tool of
    /// the listing is and Anthropic refuses a request whose tools are all deferred: the first.
    pub loaded_anyway: Option<String>,
}

#[derive(Clone, Copy)]
struct Config {
    limits: Limits,
    leniency: Leniency,
    validate: bool,
    timeout: Option<Duration>,
    /// Every tool of the set is loaded only when the model searches for it.
    defer_loading: bool,
    /// A prompt-caching breakpoint on the last tool of the Anthropic listing.
    anthropic_cache: Option<CacheControl>,
}

struct Entry {
    tool: Box<dyn DynTool>,
    timeout: Option<Duration>,
    checks: OnceLock<Checks>,
}

/// What a tool's arguments are checked with, prepared on its first call.
struct Checks {
    /// The input schema the model was shown (the MCP rendering: for a schema tooldef made, full
    /// JSON Schema with `$ref`s inlined and objects closed; for one its author wrote, that
    /// schema as written), which `null`-as-absent walks and the validator checks.
    shown: Value,
    /// The dialect of `shown`: 2020-12, or the one a written schema declares.
    draft: jsonschema::Draft,
    /// The canonical schema, whose `format`s name the Rust number types and their ranges.
    canonical: &'static Value,
    /// Validate before deserialising: deserialising alone does not enforce the whole schema.
    validate_first: bool,
    /// The arguments hold an `f32` somewhere, whose range serde does not enforce (it makes a
    /// larger number infinity): check ranges before deserialising even without validation.
    has_f32: bool,
    /// The ranges of the Rust number types the arguments go to, to tell when a call's numbers
    /// need no range check.
    ranges: TypeRanges,
    /// The validator for `shown`, built on first use: before deserialising when
    /// `validate_first`, else to explain why deserialising failed, in the same words.
    validator: OnceLock<Result<jsonschema::Validator, String>>,
}

impl Checks {
    /// Every problem the schema the model was shown finds in `value`, with the ranges of the
    /// Rust number types that receive them unless its numbers are known to be `in_range`.
    fn problems(&self, value: &Value, in_range: bool) -> Vec<ArgumentProblem> {
        let validator = self
            .validator
            .get_or_init(|| arguments::validator_in(&self.shown, self.draft));
        let mut problems: Vec<ArgumentProblem> = match validator {
            // Collecting errors costs several times what a yes or no does.
            Ok(validator) if validator.is_valid(value) => Vec::new(),
            Ok(validator) => validator
                .iter_errors(value)
                .flat_map(|e| arguments::validation_problems(&e))
                .collect(),
            Err(reason) => vec![ArgumentProblem {
                pointer: String::new(),
                message: format!("the server cannot check these arguments: {reason}"),
            }],
        };
        if in_range {
            return problems;
        }
        // A range the shown schema states (`maximum: 255` for a `u8`) is reported once.
        let ranges = arguments::range_problems(value, self.canonical);
        let reported: Vec<String> = problems.iter().map(|p| p.pointer.clone()).collect();
        problems.extend(
            ranges
                .into_iter()
                .filter(|p| !reported.contains(&p.pointer)),
        );
        problems
    }

    /// Why deserialising `value` failed, in the words of the schema the model was shown when
    /// it finds the fault (the same message whether or not validation ran first), else serde's.
    fn explain(
        &self,
        value: &Value,
        in_range: bool,
        problem: ArgumentProblem,
    ) -> Vec<ArgumentProblem> {
        let problems = if self.validate_first {
            Vec::new()
        } else {
            self.problems(value, in_range)
        };
        if problems.is_empty() {
            vec![problem]
        } else {
            problems
        }
    }
}

impl ToolSet {
    /// Starts a tool set.
    pub fn builder() -> ToolSetBuilder {
        ToolSetBuilder {
            entries: Vec::new(),
            context: CallContext::new(),
            needs: Vec::new(),
            per_call: Vec::new(),
            prompts: Prompts::default(),
            resources: Resources::default(),
            config: Config {
                limits: Limits::default(),
                leniency: Leniency::default(),
                validate: true,
                timeout: None,
                defer_loading: false,
                anthropic_cache: None,
            },
        }
    }

    /// The tools' definitions, in the order they were added.
    pub fn definitions(&self) -> impl Iterator<Item = &'static ToolDefinition> + '_ {
        self.inner.entries.iter().map(|e| e.tool.definition())
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.inner.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.inner.entries.is_empty()
    }

    /// The definition of the tool `name`.
    pub fn definition(&self, name: &str) -> Option<&'static ToolDefinition> {
        self.position(name)
            .map(|i| self.inner.entries[i].tool.definition())
    }

    /// Every tool rendered for `target`, in the order they were added. Computed once per target;
    /// later calls return the same list without any schema work.
    pub fn list(&self, target: Target) -> Result<Arc<[Value]>, ListError> {
        let listing = self.listing(target);
        match listing.refused.first() {
            Some(error) => Err(error.clone()),
            None => Ok(listing.tools.clone()),
        }
    }

    /// Every tool rendered for the model `model` (its target and profile from
    /// [`Target::for_model`]): what the model's endpoint refuses or ignores said in words. The
    /// same list as [`list`](Self::list) (and as cached) for a model of documented behaviour;
    /// computed each time for the others.
    ///
    /// ```
    /// # use tooldef::{ToolSet, Target, tool};
    /// /// Count up to a number.
    /// #[tool]
    /// fn count(#[schemars(range(min = 1, max = 10))] to: u32) -> u32 {
    ///     to
    /// }
    ///
    /// let tools = ToolSet::builder().tool(Count).build().unwrap();
    /// let (target, listed) = tools.list_for_model("meta-llama/Llama-3.3-70B-Instruct").unwrap();
    /// assert_eq!(target, Target::ChatCompletions);
    /// let to = &listed[0]["function"]["parameters"]["properties"]["to"];
    /// assert!(to.get("minimum").is_none(), "said in words, for an endpoint that ignores it");
    /// assert!(to["description"].as_str().unwrap().contains("10"));
    /// ```
    pub fn list_for_model(&self, model: &str) -> Result<(Target, Arc<[Value]>), ListError> {
        let ModelTarget { target, profile } = Target::for_model(model);
        if !profile.applies_to(target) {
            return Ok((target, self.list(target)?));
        }
        let listing =
            self.make_listing(target, |definition| definition.render_for(target, profile));
        match listing.refused.into_iter().next() {
            Some(error) => Err(error),
            None => Ok((target, listing.tools)),
        }
    }

    /// The tools rendered for `target`, leaving out those it cannot express, each with why: a
    /// recursive tool that Gemini cannot express keeps only itself out of a Gemini listing.
    /// Computed once per target, like [`list`](Self::list).
    ///
    /// ```
    /// # use tooldef::{ToolSet, Target, tool};
    /// /// Add two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let tools = ToolSet::builder().tool(Add).build().unwrap();
    /// let listing = tools.listing(Target::Gemini);
    /// assert_eq!(listing.tools.len(), 1);
    /// assert!(listing.refused.is_empty());
    /// ```
    pub fn listing(&self, target: Target) -> &Listing {
        self.inner.listings[target as usize].get_or_init(|| {
            self.make_listing(target, |definition| {
                definition.render(target).map(Cow::Borrowed)
            })
        })
    }

    /// The listing of the tools as `render` renders each for `target`: one request's tools,
    /// which share Anthropic's strict limits, deferred and cached as the set says.
    fn make_listing(
        &self,
        target: Target,
        render: impl Fn(&'static ToolDefinition) -> Result<Cow<'static, Rendering>, SchemaError>,
    ) -> Listing {
        let config = &self.inner.config;
        let mut tools = Vec::with_capacity(self.len());
        let mut names = Vec::with_capacity(self.len());
        let mut refused = Vec::new();
        let mut past_strict_limits = Vec::new();
        let mut budget = StrictBudget::default();
        for definition in self.definitions() {
            match render(definition) {
                Ok(rendering) => {
                    let mut tool = rendering.tool.clone();
                    if let Some(limit) = past_strict_limit(&mut budget, &rendering.tool) {
                        tool.set_strict(false);
                        past_strict_limits.push((definition.name().to_owned(), limit));
                    }
                    if config.defer_loading {
                        tool.set_defer_loading(true);
                    }
                    tools.push(tool);
                    names.push(definition.name());
                }
                Err(source) => refused.push(ListError {
                    tool: definition.name().to_owned(),
                    target,
                    source,
                }),
            }
        }
        let mut loaded_anyway = None;
        if target == Target::Anthropic
            && tools.iter().all(TargetTool::defer_loading)
            && let Some(first) = tools.first_mut()
        {
            first.set_defer_loading(false);
            loaded_anyway = Some(names[0].to_owned());
        }
        if let (Some(cache), Some(TargetTool::Anthropic(last))) =
            (config.anthropic_cache, tools.last_mut())
        {
            last.cache_control = Some(cache);
        }
        Listing {
            tools: tools.into_iter().map(TargetTool::into_json).collect(),
            refused,
            past_strict_limits,
            loaded_anyway,
        }
    }

    /// Calls the tool `name` with arguments as JSON text, bytes or a value.
    pub async fn call<'a>(
        &self,
        name: &str,
        arguments: impl Into<Arguments<'a>>,
    ) -> Result<ToolOutput, ToolError> {
        self.call_with(name, arguments, CallContext::new()).await
    }

    /// Calls the tool `name`, with per-call context (call id, cancellation) added to the set's
    /// state.
    pub async fn call_with<'a>(
        &self,
        name: &str,
        arguments: impl Into<Arguments<'a>>,
        call: CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let entry = self.entry(name)?;
        let context = self.inner.context.merge_call(call);
        let definition = entry.tool.definition();
        let arguments = arguments.into();
        // A `Deserialize` impl of the tool's types may panic: that must not escape either.
        let prepared = std::panic::catch_unwind(AssertUnwindSafe(|| {
            self.prepare(entry, arguments, context.clone())
        }));
        let invocation = match prepared {
            Ok(Ok(invocation)) => invocation,
            Ok(Err(problems)) => {
                return Err(ToolError::InvalidArguments {
                    tool: definition.name().to_owned(),
                    problems,
                });
            }
            Err(panic) => return Err(panicked(definition, panic.as_ref())),
        };
        self.run(entry, definition, invocation, context).await
    }

    /// Calls a tool with arguments already typed: no parsing or validation, but the same
    /// context, time limit, panic safety and output handling as [`ToolSet::call`]. The tool need
    /// not be in the set.
    pub async fn call_typed<T: Tool>(
        &self,
        tool: &T,
        args: T::Args,
        call: CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let context = self.inner.context.merge_call(call);
        let definition = tool.definition();
        let timeout = self
            .position(definition.name())
            .and_then(|i| self.inner.entries[i].timeout)
            .or(self.inner.config.timeout);
        run_invocation(
            definition,
            invoke(tool, args, context.clone()),
            context,
            timeout,
        )
        .await
    }

    /// The prompts, in the order they were added.
    pub fn prompts(&self) -> impl Iterator<Item = &'static PromptDefinition> + '_ {
        self.inner.prompts.definitions()
    }

    /// Whether there are prompts.
    pub fn has_prompts(&self) -> bool {
        !self.inner.prompts.is_empty()
    }

    /// The messages of the prompt `name` for `arguments`, with per-call context added to the
    /// set's state.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: StringArgs,
        call: CallContext,
    ) -> Result<PromptReply, PromptError> {
        let context = self.inner.context.merge_call(call);
        self.inner.prompts.get(name, arguments, context).await
    }

    /// Suggestions for an argument of the prompt `name`.
    pub async fn complete_prompt(
        &self,
        name: &str,
        request: CompletionRequest,
        call: CallContext,
    ) -> Result<Completions, PromptError> {
        let context = self.inner.context.merge_call(call);
        self.inner.prompts.complete(name, request, context).await
    }

    /// The resources at a fixed URI, in the order they were added.
    pub fn resources(&self) -> impl Iterator<Item = &'static ResourceDefinition> + '_ {
        self.inner.resources.fixed()
    }

    /// The resource templates, in the order they were added.
    pub fn resource_templates(&self) -> impl Iterator<Item = &'static ResourceDefinition> + '_ {
        self.inner.resources.templates()
    }

    /// Whether there are resources or templates.
    pub fn has_resources(&self) -> bool {
        !self.inner.resources.is_empty()
    }

    /// Reads the resource at `uri`: a fixed one, else the first template that matches.
    pub async fn read_resource(
        &self,
        uri: &str,
        call: CallContext,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        let context = self.inner.context.merge_call(call);
        self.inner.resources.read(uri, context).await
    }

    /// Suggestions for a variable of the resource template written `template`.
    pub async fn complete_resource(
        &self,
        template: &str,
        request: CompletionRequest,
        call: CallContext,
    ) -> Result<Completions, ResourceError> {
        let context = self.inner.context.merge_call(call);
        self.inner
            .resources
            .complete(template, request, context)
            .await
    }

    /// Where the tool `name` is among the tools (the order of every listing), found by binary
    /// search over the sorted names.
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        let index = &self.inner.index;
        index
            .binary_search_by(|(n, _)| (*n).cmp(name))
            .ok()
            .map(|found| index[found].1)
    }

    fn entry(&self, name: &str) -> Result<&Entry, ToolError> {
        match self.position(name) {
            Some(i) => Ok(&self.inner.entries[i]),
            None => Err(ToolError::UnknownTool {
                name: name.to_owned(),
                suggestions: self.suggestions(name),
                available: self.inner.entries.len(),
            }),
        }
    }

    /// Up to three names close to `name` (a typo or two away, or differing only in case and
    /// separators), closest first.
    fn suggestions(&self, name: &str) -> Vec<String> {
        crate::names::closest(name, self.definitions().map(ToolDefinition::name))
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// The argument pipeline: limits → JSON → `null` as absent → leniency → validation →
    /// deserialisation. Returns the started call, or every problem found.
    fn prepare<'s>(
        &'s self,
        entry: &'s Entry,
        arguments: Arguments<'_>,
        context: CallContext,
    ) -> Result<Invocation<'s>, Vec<ArgumentProblem>> {
        let config = &self.inner.config;
        let checks = entry.checks(config.validate);
        let (value, shape) = match arguments {
            Arguments::Json(value) => {
                let shape = Shape::of(&value);
                // Serialising to count the bytes recurses, so only within the depth limit, and
                // only when the bound might pass the limit.
                let len = (shape.depth <= config.limits.max_depth
                    && shape.len_bound > config.limits.max_bytes)
                    .then(|| arguments::json_len(&value));
                let problems = limit_problems(len, shape.depth, &config.limits);
                if !problems.is_empty() {
                    if let Cow::Owned(value) = value {
                        arguments::dispose(value);
                    }
                    return Err(problems);
                }
                (value.into_owned(), shape)
            }
            Arguments::Text(text) => {
                return self.prepare_bytes(entry, checks, text.as_bytes(), context);
            }
            Arguments::Bytes(bytes) => return self.prepare_bytes(entry, checks, &bytes, context),
        };
        self.prepare_value(entry, checks, value, shape, context)
    }

    fn prepare_bytes<'s>(
        &'s self,
        entry: &'s Entry,
        checks: &Checks,
        bytes: &[u8],
        context: CallContext,
    ) -> Result<Invocation<'s>, Vec<ArgumentProblem>> {
        let config = &self.inner.config;
        let scan = arguments::scan(bytes);
        let problems = limit_problems(Some(bytes.len()), scan.depth, &config.limits);
        if !problems.is_empty() {
            return Err(problems);
        }
        let trimmed = bytes.trim_ascii();
        if trimmed.is_empty() {
            let shape = Shape::of(&Value::Null);
            return self.prepare_value(entry, checks, Value::Null, shape, context);
        }
        // Text is parsed into a value, from which the arguments are deserialised as on the value
        // path: one deserialiser per tool, not one for text and one for values.
        let value = arguments::parse_unique(trimmed).map_err(|p| vec![p])?;
        let shape = Shape::of(&value);
        self.prepare_value(entry, checks, value, shape, context)
    }

    /// The value path, for a value of the given `shape`.
    fn prepare_value<'s>(
        &'s self,
        entry: &'s Entry,
        checks: &Checks,
        value: Value,
        shape: Shape,
        context: CallContext,
    ) -> Result<Invocation<'s>, Vec<ArgumentProblem>> {
        let leniency = self.inner.config.leniency;
        let (value, shape) = if leniency.double_encoded {
            let value = arguments::decode_double_encoded(value);
            let shape = Shape::of(&value);
            (value, shape)
        } else {
            (value, shape)
        };
        let mut value = Value::Object(arguments::require_object(value).map_err(|p| vec![p])?);
        // The rewrites act on `null`s, numbers that are not integers and (leniency) strings:
        // without any of them, the walk along the schema would change nothing.
        if shape.has_null || shape.has_float() || leniency.stringly_typed {
            arguments::rewrite(&mut value, &checks.shown, leniency.stringly_typed);
        }
        // Strings made numbers are numbers the shape has not seen.
        let in_range = !leniency.stringly_typed && checks.ranges.hold(&shape);
        let problems = if checks.validate_first {
            checks.problems(&value, in_range)
        } else if checks.has_f32 && !in_range {
            arguments::range_problems(&value, checks.canonical)
        } else {
            Vec::new()
        };
        if !problems.is_empty() {
            return Err(problems);
        }
        entry
            .tool
            .start_from_value(&value, context)
            .map_err(|problem| checks.explain(&value, in_range, problem))
    }

    async fn run(
        &self,
        entry: &Entry,
        definition: &'static ToolDefinition,
        invocation: Invocation<'_>,
        context: CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let timeout = entry.timeout.or(self.inner.config.timeout);
        run_invocation(definition, invocation, context, timeout).await
    }
}

/// The most characters of a tool's own error message passed on to the model.
const MAX_FAILURE_CHARS: usize = 2000;

/// Runs a started call: within its time limit, with panics caught, its return value turned into
/// output as its definition says.
async fn run_invocation(
    definition: &'static ToolDefinition,
    invocation: Invocation<'_>,
    context: CallContext,
    timeout: Option<Duration>,
) -> Result<ToolOutput, ToolError> {
    let tool = || definition.name().to_owned();
    let guarded = AssertUnwindSafe(invocation).catch_unwind();
    let finished = match timeout {
        Some(limit) => match tokio::time::timeout(limit, guarded).await {
            Ok(finished) => finished,
            Err(_) => {
                // The future is dropped here; tell anything it spawned to stop too.
                context.cancel();
                return Err(ToolError::TimedOut {
                    tool: tool(),
                    after: limit,
                });
            }
        },
        None => guarded.await,
    };
    match finished {
        Err(panic) => Err(panicked(definition, panic.as_ref())),
        Ok(Err(reason)) => Err(ToolError::Unavailable {
            tool: tool(),
            reason: reason.to_string(),
        }),
        Ok(Ok(Err(message))) => Err(ToolError::Failed {
            tool: tool(),
            // A model does not need a 100 kB error, and a context window cannot spare one.
            message: crate::describe_value::shorten(&message, MAX_FAILURE_CHARS),
        }),
        Ok(Ok(Ok(ReturnValue::Output(output)))) => Ok(output),
        Ok(Ok(Ok(ReturnValue::Json(value)))) => {
            let nulls = definition.output_problems(&value);
            if !nulls.is_empty() {
                return Err(ToolError::Failed {
                    tool: tool(),
                    message: unsendable_result(&nulls),
                });
            }
            let mismatches = definition.output_mismatches(&value);
            if !mismatches.is_empty() {
                return Err(ToolError::Failed {
                    tool: tool(),
                    message: result_off_schema(&mismatches),
                });
            }
            Ok(ToolOutput::json(
                value,
                definition.output_schema().is_some(),
            ))
        }
    }
}

/// Why a result its own output schema refuses is not sent (found in debug builds): the tool's
/// fault, which its developer fixes.
fn result_off_schema(problems: &[String]) -> String {
    format!(
        "its result does not match its own output schema ({}): the return type's `Serialize` \
         and `JsonSchema` disagree (checked in debug builds). This was not caused by your \
         arguments",
        problems.join("; ")
    )
}

/// Why a result with a `null` its output schema does not allow is not sent. It is the
/// server's fault, not the model's: a NaN or infinite number, which JSON writes as `null`.
fn unsendable_result(problems: &[ArgumentProblem]) -> String {
    let places: Vec<String> = problems
        .iter()
        .map(|p| format!("at `{}`: {}", p.pointer, p.message))
        .collect();
    format!(
        "its result cannot be sent: it has `null` where its output schema does not allow it \
         ({}). A number that is NaN or infinite has no JSON form and becomes `null`; this was \
         not caused by your arguments",
        places.join("; ")
    )
}

fn panicked(definition: &ToolDefinition, panic: &(dyn std::any::Any + Send)) -> ToolError {
    ToolError::Panicked {
        tool: definition.name().to_owned(),
        message: crate::registry::panic_message(panic),
    }
}

impl Entry {
    /// Refuses an example of the tool's arguments that its schema refuses, with the same
    /// checks as a call (the schema the model is shown, the Rust number types' ranges).
    fn check_examples(&self, validate: bool) -> Result<(), BuildError> {
        let definition = self.tool.definition();
        for (at, example) in definition.examples().iter().enumerate() {
            let value = Value::Object(example.clone());
            let problems = self.checks(validate).problems(&value, false);
            if !problems.is_empty() {
                return Err(BuildError::InvalidExample {
                    tool: definition.name().to_owned(),
                    example: at + 1,
                    arguments: crate::describe_value::shorten(&value.to_string(), 300),
                    problems,
                });
            }
        }
        Ok(())
    }

    fn checks(&self, validate: bool) -> &Checks {
        self.checks.get_or_init(|| {
            let definition = self.tool.definition();
            let canonical = definition.input_schema().as_value();
            let shown = definition
                .to_json(Target::Mcp)
                .ok()
                .and_then(|mut mcp| mcp.get_mut("inputSchema").map(Value::take))
                .unwrap_or_else(|| canonical.clone());
            // A written schema is checked before deserialising whatever it says: the argument
            // type of a `Tool` implemented by hand is not known to enforce it (it may ignore a
            // property the schema refuses), as `#[tool]`'s generated one is.
            let written = definition.written_input_schema().is_some();
            Checks {
                draft: crate::schema::declared_draft(&shown),
                shown,
                canonical,
                validate_first: validate
                    && (written || !arguments::serde_enforces_schema(canonical)),
                has_f32: arguments::has_format(canonical, "float"),
                ranges: TypeRanges::of(canonical),
                validator: OnceLock::new(),
            }
        })
    }
}

/// Builds a [`ToolSet`]; see [`ToolSet::builder`].
///
/// ```
/// use std::time::Duration;
/// use tooldef::{ToolError, ToolSet, tool};
///
/// /// Add two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// /// Take a long nap.
/// #[tool]
/// async fn nap() -> &'static str {
///     tokio::time::sleep(Duration::from_secs(60)).await;
///     "rested"
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let tools = ToolSet::builder()
///     .tool(Add)
///     .tool_with_timeout(Nap, Duration::from_millis(10)) // its own time limit
///     .timeout(Duration::from_secs(30))                  // every other tool's
///     .build()?;
/// assert_eq!(tools.len(), 2);
/// let error = tools.call("nap", "{}").await.unwrap_err();
/// assert!(matches!(error, ToolError::TimedOut { .. }));
/// # Ok(())
/// # }
/// ```
#[must_use]
pub struct ToolSetBuilder {
    entries: Vec<Entry>,
    context: CallContext,
    /// The state each tool, prompt and resource needs, checked by `build`.
    needs: Vec<Need>,
    /// State declared to come with every call rather than with the set.
    per_call: Vec<TypeId>,
    config: Config,
    prompts: Prompts,
    resources: Resources,
}

impl ToolSetBuilder {
    /// Adds a tool.
    ///
    /// `#[tool]` makes the tool's type (`add` → `Add`); [`toolset!`](crate::toolset!) adds several
    /// and checks their names are distinct at compile time.
    ///
    /// ```
    /// use tooldef::{ToolSet, tool};
    ///
    /// /// Add two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let tools = ToolSet::builder().tool(Add).build().unwrap();
    /// assert_eq!(tools.definition("add").unwrap().description(), Some("Add two numbers."));
    /// ```
    pub fn tool<T: Tool>(mut self, tool: T) -> Self {
        self.need("tool", tool.definition().name(), tool.needed_state());
        self.entries.push(Entry {
            tool: Box::new(tool),
            timeout: None,
            checks: OnceLock::new(),
        });
        self
    }

    /// Adds a tool with its own time limit, which overrides the set's.
    pub fn tool_with_timeout<T: Tool>(mut self, tool: T, timeout: Duration) -> Self {
        self = self.tool(tool);
        if let Some(entry) = self.entries.last_mut() {
            entry.timeout = Some(timeout);
        }
        self
    }

    /// Adds a prompt (`#[prompt]`), which an MCP server serves beside the tools.
    pub fn prompt<P: Prompt>(mut self, prompt: P) -> Self {
        self.need("prompt", prompt.definition().name(), prompt.needed_state());
        self.prompts.push(prompt);
        self
    }

    /// Adds a resource or a resource template (`#[resource]`), which an MCP server serves beside
    /// the tools.
    pub fn resource<R: Resource>(mut self, resource: R) -> Self {
        self.need(
            "resource",
            resource.definition().uri(),
            resource.needed_state(),
        );
        self.resources.push(resource);
        self
    }

    /// Application state, reachable from tools, prompts and resources through `State<S>`
    /// parameters. [`build`](Self::build) refuses a set whose tools need state not given here
    /// (nor declared with [`state_per_call`](Self::state_per_call)).
    ///
    /// ```
    /// use tooldef::{State, ToolSet, tool};
    ///
    /// #[derive(Clone)]
    /// struct Config {
    ///     greeting: &'static str,
    /// }
    ///
    /// /// Greet someone.
    /// #[tool]
    /// fn greet(name: String, State(config): State<Config>) -> String {
    ///     format!("{}, {name}", config.greeting)
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let tools = ToolSet::builder().tool(Greet).state(Config { greeting: "Hi" }).build()?;
    /// assert_eq!(tools.call("greet", r#"{"name": "Ada"}"#).await?.to_text(), "Hi, Ada");
    /// # Ok(())
    /// # }
    /// ```
    pub fn state<S: Clone + Send + Sync + 'static>(mut self, state: S) -> Self {
        self.context = self.context.with_state(state);
        self
    }

    /// Declares that every call brings its own state of type `S`
    /// ([`CallContext::with_state`], given to [`ToolSet::call_with`]), so that
    /// [`build`](Self::build) accepts tools that need one though the set has none.
    ///
    /// ```
    /// use tooldef::{CallContext, State, ToolSet, tool};
    ///
    /// #[derive(Clone)]
    /// struct User(String);
    ///
    /// /// Say who is calling.
    /// #[tool]
    /// fn whoami(State(user): State<User>) -> String {
    ///     user.0
    /// }
    ///
    /// assert!(ToolSet::builder().tool(Whoami).build().is_err()); // no `User` anywhere
    /// let set = ToolSet::builder().tool(Whoami).state_per_call::<User>().build().unwrap();
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let context = CallContext::new().with_state(User("ada".into()));
    /// let output = set.call_with("whoami", "{}", context).await.unwrap();
    /// # let _ = output;
    /// # });
    /// ```
    pub fn state_per_call<S: Clone + Send + Sync + 'static>(mut self) -> Self {
        self.per_call.push(TypeId::of::<S>());
        self
    }

    fn need(&mut self, kind: &'static str, name: &str, states: Vec<NeededState>) {
        self.needs.extend(states.into_iter().map(|state| Need {
            kind,
            name: name.to_owned(),
            state,
        }));
    }

    /// The first need that nothing fills: not the set's state, not declared per call, not
    /// given by the server to every call it makes.
    fn missing_state(&self) -> Option<&Need> {
        self.needs.iter().find(|need| {
            let id = need.state.id();
            !self.context.has_state(id) && !self.per_call.contains(&id) && !supplied_per_call(id)
        })
    }

    /// Limits on each call's arguments (default: 1 MiB, depth 100).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.config.limits = limits;
        self
    }

    /// Model mistakes to forgive (default: none).
    pub fn leniency(mut self, leniency: Leniency) -> Self {
        self.config.leniency = leniency;
        self
    }

    /// Whether to validate arguments against the schema the model was shown (default: yes).
    /// Without it, only what deserialising the argument types checks is checked.
    pub fn validation(mut self, validate: bool) -> Self {
        self.config.validate = validate;
        self
    }

    /// A time limit for every call (default: none). Needs a Tokio runtime with its timer.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.config.timeout = Some(timeout);
        self
    }

    /// Lists every tool of the set as loaded only when the model searches for it
    /// (`defer_loading: true` for Responses and Anthropic, which then need a tool-search tool
    /// in the request; the other targets list the tools as usual). Anthropic refuses a request
    /// whose tools are all deferred: its listing keeps the first tool loaded
    /// ([`Listing::loaded_anyway`]). A single tool is deferred by its definition
    /// ([`ToolDefinition::defer_loading`], `#[tool(defer_loading)]`).
    ///
    /// ```
    /// # use tooldef::{ToolSet, Target, tool};
    /// /// Add two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let tools = ToolSet::builder().tool(Add).defer_loading(true).build().unwrap();
    /// assert_eq!(tools.list(Target::Responses).unwrap()[0]["defer_loading"], true);
    /// // The only tool of an Anthropic request cannot be deferred.
    /// assert!(tools.list(Target::Anthropic).unwrap()[0].get("defer_loading").is_none());
    /// ```
    pub fn defer_loading(mut self, defer: bool) -> Self {
        self.config.defer_loading = defer;
        self
    }

    /// Puts an Anthropic prompt-caching breakpoint (`cache_control`) on the last tool of the
    /// Anthropic listing, so that the tools are cached across requests (they come first in
    /// Anthropic's cache order).
    ///
    /// ```
    /// # use tooldef::{ToolSet, Target, tool};
    /// use tooldef::targets::{CacheControl, CacheTtl};
    /// /// Add two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let tools = ToolSet::builder()
    ///     .tool(Add)
    ///     .anthropic_cache(CacheControl { ttl: Some(CacheTtl::OneHour) })
    ///     .build()
    ///     .unwrap();
    /// let listed = tools.list(Target::Anthropic).unwrap();
    /// assert_eq!(listed[0]["cache_control"], serde_json::json!({"type": "ephemeral", "ttl": "1h"}));
    /// ```
    pub fn anthropic_cache(mut self, cache: CacheControl) -> Self {
        self.config.anthropic_cache = Some(cache);
        self
    }

    /// The tool set; refuses two tools or two prompts with the same name, and two resources
    /// with the same URI.
    ///
    /// ```
    /// use tooldef::{BuildError, ToolSet, tool};
    ///
    /// /// Add two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// /// Add two numbers, under the same name.
    /// #[tool(name = "add")]
    /// fn add_again(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let built = ToolSet::builder().tool(Add).tool(AddAgain).build();
    /// assert!(matches!(built, Err(BuildError::DuplicateName { .. })));
    /// ```
    pub fn build(self) -> Result<ToolSet, BuildError> {
        let missing_state = self.missing_state().map(|need| BuildError::MissingState {
            kind: need.kind,
            name: need.name.clone(),
            state: need.state.type_name(),
        });
        let prompts = self.prompts.build()?;
        let resources = self.resources.build()?;
        let mut index: HashMap<&'static str, usize> = HashMap::new();
        for (i, entry) in self.entries.iter().enumerate() {
            let name = entry.tool.definition().name();
            if let Some(&first) = index.get(name) {
                return Err(BuildError::DuplicateName {
                    name: name.to_owned(),
                    first: self.entries[first].tool.type_name(),
                    second: entry.tool.type_name(),
                });
            }
            index.insert(name, i);
            let schema = entry.tool.definition().input_schema().as_value();
            if let Some((pointer, default)) =
                arguments::unreachable_nones(schema).into_iter().next()
            {
                return Err(BuildError::UnreachableNone {
                    tool: name.to_owned(),
                    pointer,
                    default: default.to_string(),
                });
            }
        }
        // After the names: of two mistakes, the one about which tools there are is said first.
        if let Some(error) = missing_state {
            return Err(error);
        }
        for entry in &self.entries {
            entry.check_examples(self.config.validate)?;
        }
        let mut index: Vec<(&'static str, usize)> = index.into_iter().collect();
        index.sort_unstable();
        Ok(ToolSet {
            inner: Arc::new(Inner {
                entries: self.entries,
                index,
                context: self.context,
                config: self.config,
                listings: Default::default(),
                prompts,
                resources,
            }),
        })
    }
}

/// State that a tool, prompt or resource needs.
struct Need {
    kind: &'static str,
    name: String,
    state: NeededState,
}

/// State that the MCP server gives every call it makes (its peer, itself, the request's
/// `_meta`), which a set therefore need not have.
fn supplied_per_call(id: TypeId) -> bool {
    #[cfg(feature = "mcp")]
    {
        crate::mcp::supplies_per_call(id)
    }
    #[cfg(not(feature = "mcp"))]
    {
        let _ = id;
        false
    }
}

/// A [`Tool`] with its types erased, so that tools of different types share one set.
trait DynTool: Send + Sync + 'static {
    fn definition(&self) -> &'static ToolDefinition;
    fn type_name(&self) -> &'static str;
    /// Deserialises the arguments from a value and starts the call.
    fn start_from_value(
        &self,
        value: &Value,
        context: CallContext,
    ) -> Result<Invocation<'_>, ArgumentProblem>;
}

impl<T: Tool> DynTool for T {
    fn definition(&self) -> &'static ToolDefinition {
        Tool::definition(self)
    }

    fn type_name(&self) -> &'static str {
        Tool::type_name(self)
    }

    fn start_from_value(
        &self,
        value: &Value,
        context: CallContext,
    ) -> Result<Invocation<'_>, ArgumentProblem> {
        // Both reads are one instantiation of the arguments' `Deserialize`; the second, which
        // keeps the path, runs only to say where the first failed.
        match T::Args::deserialize(Tracked::new(value, None)) {
            Ok(args) => Ok(invoke(self, args, context)),
            Err(_) => {
                let track = Track::default();
                match T::Args::deserialize(Tracked::new(value, Some(&track))) {
                    Err(error) => Err(deserialize_problem(track.pointer(), &error)),
                    Ok(_) => Err(unreachable_problem()),
                }
            }
        }
    }
}

/// Deserialising twice gave two answers: only a non-deterministic `Deserialize` impl does that.
fn unreachable_problem() -> ArgumentProblem {
    ArgumentProblem {
        pointer: String::new(),
        message: "the arguments could not be read consistently; send them again".to_owned(),
    }
}

fn invoke<T: Tool>(tool: &T, args: T::Args, context: CallContext) -> Invocation<'_> {
    Box::pin(async move {
        let output = tool.call(args, context).await?;
        Ok(T::output(output))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::json_schema;
    use serde_json::json;

    /// A hand-written tool over any definition: it takes whatever object it is given and
    /// returns it, so that what reaches it is what validation let through.
    struct Echo(&'static ToolDefinition);

    /// What [`Echo`] deserialises: named fields, unknown ones ignored (no
    /// `deny_unknown_fields`), as a hand-written argument type often is.
    #[derive(Debug, serde::Deserialize)]
    struct EchoArgs {
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        address: Option<Value>,
        #[serde(default)]
        pair: Option<Value>,
    }

    impl Tool for Echo {
        type Args = EchoArgs;
        type Output = Value;
        const NAME: &'static str = "echo";

        fn definition(&self) -> &'static ToolDefinition {
            self.0
        }

        async fn call(&self, args: EchoArgs, _: CallContext) -> Result<Value, ContextError> {
            Ok(json!({"name": args.name, "address": args.address, "pair": args.pair}))
        }

        fn output(output: Value) -> Result<ReturnValue, String> {
            Ok(ReturnValue::Json(output))
        }
    }

    fn written(strict: bool) -> &'static ToolDefinition {
        Box::leak(Box::new(
            ToolDefinition::builder("echo")
                .input_schema(json_schema!({
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "$defs": {"address": {
                        "type": "object",
                        "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                    }},
                    "properties": {
                        "name": {"type": "string"},
                        "address": {"$ref": "#/$defs/address"}
                    },
                    "additionalProperties": false
                }))
                .strict(strict)
                .build(),
        ))
    }

    fn set(definition: &'static ToolDefinition) -> ToolSet {
        ToolSet::builder().tool(Echo(definition)).build().unwrap()
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(future)
    }

    fn problems(tools: &ToolSet, arguments: Value) -> Vec<(String, String)> {
        match block_on(tools.call("echo", arguments)) {
            Err(ToolError::InvalidArguments { problems, .. }) => problems
                .into_iter()
                .map(|p| (p.pointer, p.message))
                .collect(),
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn what_the_written_schema_allows_is_accepted_whether_strict_or_not() {
        for strict in [true, false] {
            let tools = set(written(strict));
            let call = json!({"address": {"street": "x", "zip": "1"}});
            let output = block_on(tools.call("echo", call)).unwrap();
            assert_eq!(
                output.structured, None,
                "no output schema, so no structured content"
            );
            assert_eq!(
                output.to_text(),
                r#"{"name":null,"address":{"street":"x","zip":"1"},"pair":null}"#
            );
        }
    }

    #[test]
    fn what_it_refuses_is_refused_at_its_path_in_todays_words() {
        let tools = set(written(true));
        assert_eq!(
            problems(&tools, json!({"address": {"street": 5}})),
            [(
                "/address/street".to_owned(),
                "expected `string`, got an integer (5)".to_owned()
            )]
        );
        assert_eq!(
            problems(&tools, json!({"name": "x", "zip": "1"})),
            [(
                String::new(),
                "unknown property `zip`: remove it".to_owned()
            )]
        );
        // The same words as for a schema tooldef made of the same types.
        let made = Box::leak(Box::new(
            ToolDefinition::builder("echo")
                .canonical_input_schema(json_schema!({
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/A"}},
                    "$defs": {"A": {"type": "object", "properties": {"street": {"type": "string"}}}},
                    "additionalProperties": false
                }))
                .build(),
        ));
        for call in [
            json!({"name": 3}),
            json!({"address": {"street": ["x"]}}),
            json!({"address": "x"}),
        ] {
            assert_eq!(
                problems(&tools, call.clone()),
                problems(&set(made), call.clone()),
                "{call}"
            );
        }
    }

    #[test]
    fn a_written_schema_is_checked_even_where_its_argument_type_would_not_enforce_it() {
        // A closed object of plain properties: for `#[tool]`'s generated, `deny_unknown_fields`
        // argument type, deserialising alone enforces it; `EchoArgs` ignores unknown fields.
        let definition = Box::leak(Box::new(
            ToolDefinition::builder("echo")
                .input_schema(json_schema!({
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "additionalProperties": false
                }))
                .build(),
        ));
        assert!(arguments::serde_enforces_schema(
            definition.input_schema().as_value()
        ));
        assert_eq!(
            problems(&set(definition), json!({"name": "x", "other": 1})),
            [(
                String::new(),
                "unknown property `other`: remove it".to_owned()
            )]
        );
    }

    #[test]
    fn a_written_schema_of_an_older_draft_is_validated_in_its_own_dialect() {
        let definition = Box::leak(Box::new(
            ToolDefinition::builder("echo")
                .input_schema(json_schema!({
                    "$schema": "http://json-schema.org/draft-07/schema#",
                    "type": "object",
                    "properties": {
                        "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}
                    }
                }))
                .build(),
        ));
        let tools = set(definition);
        assert!(block_on(tools.call("echo", json!({"pair": ["a", 1]}))).is_ok());
        assert_eq!(
            problems(&tools, json!({"pair": ["a", "b"]})),
            [(
                "/pair/1".to_owned(),
                "expected `integer`, got a string (\"b\")".to_owned()
            )]
        );
    }

    #[test]
    fn a_written_schema_that_is_not_valid_refuses_every_call_and_every_listing() {
        let definition = Box::leak(Box::new(
            ToolDefinition::builder("echo")
                .input_schema(
                    json_schema!({"type": "object", "properties": {"a": {"type": "strnig"}}}),
                )
                .build(),
        ));
        let tools = set(definition);
        let refused = problems(&tools, json!({"a": "x"}));
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert!(
            refused[0]
                .1
                .starts_with("the server cannot check these arguments"),
            "{refused:?}"
        );
        for target in Target::ALL {
            let error = tools.list(target).unwrap_err();
            assert!(
                matches!(error.source, crate::SchemaError::InvalidSchema { .. }),
                "{target}: {error:?}"
            );
        }
    }
}
