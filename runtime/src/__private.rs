//! What the code `#[tool]`, `#[prompt]` and `#[resource]` generate needs from this crate. Not
//! public API.

pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::arguments::fields;

use std::future::Future;
use std::marker::PhantomData;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};

use crate::completion::{CompletionRequest, Completions, IntoCompletions};
use crate::string_args::{StringArgError, StringArgs};

use crate::portable::{
    MapsAreNotPortable, ReferencesAreNotPortable, TuplesAreNotPortable,
    UniformTuplesAreNotPortable, WideIntegersAreNotPortable,
};

/// The input schema of an argument type: draft 2020-12, as the type deserialises.
pub fn input_schema<T: JsonSchema>() -> Schema {
    SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// What `#[tool]` knows of a tool's definition when it expands: everything but the schemas.
#[derive(Debug)]
pub struct DefinitionParts {
    /// The wire name.
    pub name: &'static str,
    /// `#[tool(title = "…")]`.
    pub title: Option<&'static str>,
    /// The doc comment or `#[tool(description = "…")]`.
    pub description: &'static str,
    /// `#[tool(read_only)]` and the other hints.
    pub read_only: Option<bool>,
    /// `#[tool(destructive)]`.
    pub destructive: Option<bool>,
    /// `#[tool(idempotent)]`.
    pub idempotent: Option<bool>,
    /// `#[tool(open_world)]`.
    pub open_world: Option<bool>,
    /// `#[tool(strict = false)]` turns it off.
    pub strict: bool,
    /// `#[tool(icon = …)]`s, as the JSON text of MCP's `icons` array (written and checked by
    /// the macro; a string is the least code per tool).
    pub icons: Option<&'static str>,
    /// `#[tool(meta(…))]`, as the JSON text of MCP's `_meta` object.
    pub meta: Option<&'static str>,
    /// `#[tool(task)]`.
    pub task: bool,
    /// `#[tool(example(…))]`s: a function giving each example's arguments, run once, when the
    /// definition is made; `None` for a tool without examples, which then has no code for them.
    pub examples: Option<fn() -> Vec<ExampleArguments>>,
    /// `#[tool(defer_loading)]`.
    pub defer_loading: bool,
}

/// One example's arguments, as a JSON object.
pub type ExampleArguments = serde_json::Map<String, serde_json::Value>;

/// A tool's definition, made once in `cell`. One function for every tool, not generated per
/// tool: a builder chain written out in each tool's `definition()` was 3.5 kB of debug code a
/// tool, and the `OnceLock` initialisation was instantiated again for each tool's closure.
pub fn definition(
    cell: &'static std::sync::OnceLock<crate::ToolDefinition>,
    parts: &DefinitionParts,
    input_schema: fn() -> Schema,
    output_schema: fn() -> Option<Schema>,
) -> &'static crate::ToolDefinition {
    cell.get_or_init(|| {
        let mut builder = crate::ToolDefinition::builder(parts.name);
        if let Some(title) = parts.title {
            builder = builder.title(title);
        }
        builder = builder
            .description(parts.description)
            .canonical_input_schema(input_schema())
            .output_schema(output_schema())
            .annotations(crate::ToolAnnotations {
                read_only_hint: parts.read_only,
                destructive_hint: parts.destructive,
                idempotent_hint: parts.idempotent,
                open_world_hint: parts.open_world,
                ..Default::default()
            })
            .strict(parts.strict)
            .runs_as_task(parts.task)
            .defer_loading(parts.defer_loading);
        for example in parts
            .examples
            .map(|examples| examples())
            .unwrap_or_default()
        {
            builder = builder.example(example);
        }
        if let Some(icons) = parts.icons {
            builder = builder.icons(macro_json(icons));
        }
        if let Some(serde_json::Value::Object(meta)) = parts.meta.map(macro_json) {
            builder = builder.meta(meta);
        }
        builder.build()
    })
}

/// JSON text the macro wrote from literals it checked, so it always parses.
fn macro_json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("#[tool] writes valid JSON")
}

/// A `#[schemars(transform)]` for generated argument structs: their doc comment is for rustdoc,
/// while the model reads the tool's own description.
pub fn remove_root_description(schema: &mut Schema) {
    schema.remove("description");
}

/// A parameter's default is shown to the model in its JSON spelling, so its type must serialise.
#[diagnostic::on_unimplemented(
    message = "the default of a tool parameter of type `{Self}` cannot be shown to the model",
    label = "`{Self}` does not implement `Serialize`",
    note = "tooldef writes each default into the parameter's description (\"Default: 3.\"), which needs `Serialize`: derive it, or drop `default`"
)]
pub trait DefaultShown {}
// Not recommended, so that rustc reports `DefaultShown`'s own message about the type rather than
// `Serialize`'s unmet bound with its list of every type that implements it.
#[diagnostic::do_not_recommend]
impl<T: serde::Serialize> DefaultShown for T {}

/// The value of an argument in `#[tool(example(…))]`: shown to the model as JSON, so its type
/// must serialise. Generated code calls [`ExampleArgument::example_json`] spanned at the value,
/// so that a type without `Serialize` is this message, there.
#[diagnostic::on_unimplemented(
    message = "an example's value of type `{Self}` cannot be shown to the model",
    label = "`{Self}` does not implement `Serialize`",
    note = "tooldef sends each `example(…)` to the model as JSON, which needs `Serialize`: derive it on the argument's type, or drop the example"
)]
pub trait ExampleArgument {
    /// The value as JSON.
    fn example_json(&self) -> Result<serde_json::Value, serde_json::Error>;
}
// As for `DefaultShown`: this trait's message, without rustc's list of `Serialize` types.
#[diagnostic::do_not_recommend]
impl<T: serde::Serialize + ?Sized> ExampleArgument for T {
    fn example_json(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::to_value(self)
    }
}

/// One `#[tool(example(…))]` as a JSON object: `named` under their wire names, in the order
/// written, and the fields of each `#[serde(flatten)]` argument's object among them. A value
/// whose `Serialize` impl fails (possible only for a type whose portability was not checked,
/// `strict = false`) is a bug in the program, reported when the definition is first made.
pub fn example_arguments(
    named: &mut [(&'static str, Result<serde_json::Value, serde_json::Error>)],
    flattened: &mut [Result<serde_json::Value, serde_json::Error>],
) -> serde_json::Map<String, serde_json::Value> {
    let mut arguments = serde_json::Map::new();
    for (name, value) in named.iter_mut() {
        let value = std::mem::replace(value, Ok(serde_json::Value::Null)).unwrap_or_else(|e| {
            panic!("the example argument `{name}` could not be written as JSON: {e}")
        });
        arguments.insert((*name).to_owned(), value);
    }
    for value in flattened.iter_mut() {
        match std::mem::replace(value, Ok(serde_json::Value::Null)) {
            Ok(serde_json::Value::Object(fields)) => arguments.extend(fields),
            Ok(other) => {
                panic!("a flattened example argument must be written as a JSON object, not {other}")
            }
            Err(e) => panic!("a flattened example argument could not be written as JSON: {e}"),
        }
    }
    arguments
}

/// Compile-time check that a defaulted parameter's type implements [`DefaultShown`].
pub const fn assert_default_shown<T: DefaultShown>() {}

/// An argument mirrored into an HTTP header (`#[arg(header = "…")]`) must be a string, an
/// integer or a boolean: MCP clients (rmcp's HTTP client among them) refuse a whole tool whose
/// `x-mcp-header` sits on a property of any other `type`.
#[diagnostic::on_unimplemented(
    message = "a `{Self}` argument cannot be mirrored into an HTTP header",
    label = "not a string, an integer or a boolean",
    note = "MCP clients copy an `#[arg(header = \"…\")]` argument into an `Mcp-Param-…` HTTP header only when its schema's `type` is `string`, `integer` or `boolean`, and refuse the whole tool otherwise",
    note = "take a `String`, an integer type or `bool` for this parameter, or drop `header`"
)]
pub trait HeaderArgument {}
macro_rules! header_arguments {
    ($($ty:ty),*) => { $(impl HeaderArgument for $ty {})* };
}
header_arguments!(
    String, bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize
);

/// Compile-time check that an `#[arg(header)]` parameter's type implements [`HeaderArgument`].
pub const fn assert_header_argument<T: HeaderArgument>() {}

/// Output schemas, chosen by autoref specialisation on the concrete return type:
/// `Result<T, E>` with `T: JsonSchema` → `T`'s schema; `T: JsonSchema` → `T`'s schema; else none.
pub mod output {
    use std::marker::PhantomData;

    use schemars::generate::SchemaSettings;
    use schemars::{JsonSchema, Schema};

    /// Carries the return type to the method lookup.
    pub struct Probe<T: ?Sized>(PhantomData<T>);

    impl<T: ?Sized> Probe<T> {
        /// A probe for `T`.
        #[allow(clippy::new_without_default)]
        pub const fn new() -> Self {
            Probe(PhantomData)
        }
    }

    fn schema_of<T: JsonSchema>() -> Schema {
        SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<T>()
    }

    /// Highest priority: `Result<T, E>` where `T` has a schema.
    pub trait ResultOutputSchema {
        /// The output schema.
        fn output_schema(&self) -> Option<Schema>;
    }
    impl<T: JsonSchema, E> ResultOutputSchema for &&Probe<Result<T, E>> {
        fn output_schema(&self) -> Option<Schema> {
            Some(schema_of::<T>())
        }
    }

    /// Next: any type with a schema.
    pub trait PlainOutputSchema {
        /// The output schema.
        fn output_schema(&self) -> Option<Schema>;
    }
    impl<T: JsonSchema> PlainOutputSchema for &Probe<T> {
        fn output_schema(&self) -> Option<Schema> {
            Some(schema_of::<T>())
        }
    }

    /// Fallback: no output schema.
    pub trait NoOutputSchema {
        /// No output schema.
        fn output_schema(&self) -> Option<Schema>;
    }
    impl<T: ?Sized> NoOutputSchema for Probe<T> {
        fn output_schema(&self) -> Option<Schema> {
            None
        }
    }
}

/// Compile-time check that an argument type is [`Portable`](crate::Portable): generated code
/// names `CheckPortable<T>` in the signature of a function that is never called, spanned at the
/// user's type, and rustc checks the bound where the type is written.
///
/// The bound is [`PortableArgument`] rather than `Portable` itself: rustc reports the refused
/// family's own message one level down (`a map (…) cannot be…`), and offers no `Portable` impl
/// as a "similar" one for the type at fault.
pub struct CheckPortable<T: PortableArgument + ?Sized>(PhantomData<T>);

/// The check of a field of an `#[derive(Elicitable)]` form: `CheckElicitField<T>` named in the
/// signature of a function that is never called, spanned at the field's type, so the error is
/// `ElicitField`'s, at the field.
pub struct CheckElicitField<T: crate::ElicitField + ?Sized>(PhantomData<T>);

/// The check of a defaulted field of an `#[derive(Elicitable)]` form, called at the field's
/// type: schemars writes the default into the form only for a type that implements
/// `Serialize`, and leaves it out without a word otherwise.
pub const fn assert_elicit_default<T: ElicitDefaultShown>() {}

/// A type whose default schemars can write into a form.
#[diagnostic::on_unimplemented(
    message = "the default of a form's field of type `{Self}` cannot reach the form",
    label = "`{Self}` does not implement `Serialize`",
    note = "schemars writes a field's `#[serde(default)]` into the form (MCP's `default`, which the client fills in) only for a type that implements `Serialize`, and otherwise leaves it out without a word: derive `Serialize` on it, or drop the default"
)]
pub trait ElicitDefaultShown {}
// As for `DefaultShown`: this trait's message, without rustc's list of `Serialize` types.
#[diagnostic::do_not_recommend]
impl<T: serde::Serialize> ElicitDefaultShown for T {}

/// A type that can be a tool argument: every [`Portable`](crate::Portable) type.
pub trait PortableArgument {}
impl<T: crate::Portable + ?Sized> PortableArgument for T {}

/// The check of a map written in an argument's type (its `Portable` impl is not recommended, so
/// that rustc does not list it among the portable types; this brings back its own message).
pub struct RefusedMap<'a, T: MapsAreNotPortable<'a> + ?Sized>(PhantomData<&'a T>);
/// The check of a tuple written in an argument's type; see [`RefusedMap`].
pub struct RefusedTuple<'a, T: TuplesAreNotPortable<'a> + ?Sized>(PhantomData<&'a T>);
/// The check of a tuple written in an argument's type whose items are all written alike; `A` is
/// the array to take instead (`[u8; 3]` for `(u8, u8, u8)`). See [`RefusedMap`].
pub struct RefusedUniformTuple<'a, T: UniformTuplesAreNotPortable<'a, A> + ?Sized, A: ?Sized>(
    PhantomData<(&'a T, &'a A)>,
);
/// The check of a 128-bit integer written in an argument's type; see [`RefusedMap`].
pub struct RefusedWideInteger<'a, T: WideIntegersAreNotPortable<'a> + ?Sized>(PhantomData<&'a T>);
/// The check of a reference written in an argument's type; see [`RefusedMap`].
pub struct RefusedReference<'a, T: ReferencesAreNotPortable<'a> + ?Sized>(PhantomData<&'a T>);

/// The tool's type is named after the function (or `type_name`); `#[tool]` checks that this
/// name, in the function's module, is the type it generated, and not another item that has it.
#[diagnostic::on_unimplemented(
    message = "`#[tool]` cannot name this tool's type `{Self}`: the module already has an item of that name",
    label = "the tool's type would be `{Self}`",
    note = "name the tool's type otherwise with `#[tool(type_name = \"…\")]` (by default it is the function's name in UpperCamelCase), or rename the other item"
)]
pub trait IsTheToolType<Generated: ?Sized> {}
impl<T: ?Sized> IsTheToolType<T> for T {}

/// Compile-time check that `Named`, the tool type's name where the function is, is `Generated`.
pub const fn assert_tool_type<Named: IsTheToolType<Generated> + ?Sized, Generated: ?Sized>() {}

/// [`IsTheToolType`] for the tool of a method of a `#[tools]` block, whose type is named after
/// the block's type and the method.
#[diagnostic::on_unimplemented(
    message = "`#[tools]` cannot name this method's tool type `{Self}`: the module already has an item of that name",
    label = "the tool's type would be `{Self}`",
    note = "name the tool's type otherwise with `#[tool(type_name = \"…\")]` on the method (by default it is the block's type followed by the method's name in UpperCamelCase), or rename the other item"
)]
pub trait IsTheMethodToolType<Generated: ?Sized> {}
impl<T: ?Sized> IsTheMethodToolType<T> for T {}

/// Compile-time check that `Named`, the tool type's name where the `#[tools]` block is, is
/// `Generated`.
pub const fn assert_method_tool_type<
    Named: IsTheMethodToolType<Generated> + ?Sized,
    Generated: ?Sized,
>() {
}

/// [`IsTheToolType`] for a prompt's type (`#[prompt]`), whose name is the function's (or the
/// block's type and the method's) in UpperCamelCase.
#[diagnostic::on_unimplemented(
    message = "`#[prompt]` cannot name this prompt's type `{Self}`: the module already has an item of that name",
    label = "the prompt's type would be `{Self}`",
    note = "name the prompt's type otherwise with `#[prompt(type_name = \"…\")]` (by default it is the function's name in UpperCamelCase, after the block's type for a method of a `#[tools]` block), or rename the other item"
)]
pub trait IsThePromptType<Generated: ?Sized> {}
impl<T: ?Sized> IsThePromptType<T> for T {}

/// Compile-time check that `Named`, the prompt type's name where the function is, is `Generated`.
pub const fn assert_prompt_type<Named: IsThePromptType<Generated> + ?Sized, Generated: ?Sized>() {}

/// [`IsTheToolType`] for a resource's type (`#[resource]`).
#[diagnostic::on_unimplemented(
    message = "`#[resource]` cannot name this resource's type `{Self}`: the module already has an item of that name",
    label = "the resource's type would be `{Self}`",
    note = "name the resource's type otherwise with `#[resource(type_name = \"…\")]` (by default it is the function's name in UpperCamelCase, after the block's type for a method of a `#[tools]` block), or rename the other item"
)]
pub trait IsTheResourceType<Generated: ?Sized> {}
impl<T: ?Sized> IsTheResourceType<T> for T {}

/// Compile-time check that `Named`, the resource type's name where the function is, is
/// `Generated`.
pub const fn assert_resource_type<
    Named: IsTheResourceType<Generated> + ?Sized,
    Generated: ?Sized,
>() {
}

/// A tool's error is shown to the model, so it must be displayable.
#[diagnostic::on_unimplemented(
    message = "a tool's error type `{Self}` must implement `Display`",
    label = "the model reads the error as text",
    note = "implement `Display` (thiserror's `#[derive(Error)]` does), or map the error into one that does"
)]
pub trait ToolErrorDisplay {
    /// The error as text.
    fn tool_error_message(&self) -> String;
}
impl<T: std::fmt::Display + ?Sized> ToolErrorDisplay for T {
    fn tool_error_message(&self) -> String {
        self.to_string()
    }
}

/// A tool's error as the message shown to the model.
pub fn error_message<E: ToolErrorDisplay + ?Sized>(error: &E) -> String {
    error.tool_error_message()
}

/// What `#[prompt]` knows of a prompt's definition when it expands.
#[derive(Debug)]
pub struct PromptParts<'a> {
    /// The name.
    pub name: &'static str,
    /// `#[prompt(title = "…")]`.
    pub title: Option<&'static str>,
    /// The doc comment or `#[prompt(description = "…")]`.
    pub description: Option<&'static str>,
    /// One per parameter that is not context, in order.
    pub arguments: &'a [PromptArgumentParts],
    /// `icon`s, as the JSON text of MCP's `icons` array.
    pub icons: Option<&'static str>,
    /// `meta(…)`, as the JSON text of MCP's `_meta` object.
    pub meta: Option<&'static str>,
}

/// One argument of a `#[prompt]`.
#[derive(Debug)]
pub struct PromptArgumentParts {
    /// Its name (the parameter's, or `#[arg(rename)]`).
    pub name: &'static str,
    /// The parameter's doc comment or `#[arg(description)]`.
    pub description: Option<&'static str>,
    /// Neither an `Option` nor defaulted.
    pub required: bool,
}

/// A prompt's definition, made once in `cell` (one function for every prompt, as
/// [`definition`] is for tools).
pub fn prompt_definition(
    cell: &'static std::sync::OnceLock<crate::PromptDefinition>,
    parts: &PromptParts<'_>,
) -> &'static crate::PromptDefinition {
    cell.get_or_init(|| {
        let mut definition = crate::PromptDefinition::new(parts.name);
        if let Some(title) = parts.title {
            definition = definition.with_title(title);
        }
        if let Some(description) = parts.description {
            definition = definition.with_description(description);
        }
        for argument in parts.arguments {
            let mut made =
                crate::PromptArgument::new(argument.name).with_required(argument.required);
            if let Some(description) = argument.description {
                made = made.with_description(description);
            }
            definition = definition.with_argument(made);
        }
        if let Some(icons) = parts.icons {
            definition = definition.with_icons(macro_json(icons));
        }
        if let Some(serde_json::Value::Object(meta)) = parts.meta.map(macro_json) {
            definition = definition.with_meta(meta);
        }
        definition
    })
}

/// What `#[resource]` knows of a resource's definition when it expands.
#[derive(Debug)]
pub struct ResourceParts {
    /// The fixed URI, or the template.
    pub uri: &'static str,
    /// Whether `uri` is a template (it has a `{`); the macro has parsed it.
    pub template: bool,
    /// The name.
    pub name: &'static str,
    /// `title = "…"`.
    pub title: Option<&'static str>,
    /// The doc comment or `description = "…"`.
    pub description: Option<&'static str>,
    /// `mime_type = "…"`.
    pub mime_type: Option<&'static str>,
    /// `size = …`, in bytes.
    pub size: Option<u64>,
    /// `annotations(…)`, as the JSON text of MCP's `annotations`.
    pub annotations: Option<&'static str>,
    /// `icon`s, as the JSON text of MCP's `icons` array.
    pub icons: Option<&'static str>,
    /// `meta(…)`, as the JSON text of MCP's `_meta` object.
    pub meta: Option<&'static str>,
}

/// A resource's definition, made once in `cell`.
pub fn resource_definition(
    cell: &'static std::sync::OnceLock<crate::ResourceDefinition>,
    parts: &ResourceParts,
) -> &'static crate::ResourceDefinition {
    cell.get_or_init(|| {
        let mut definition = if parts.template {
            crate::ResourceDefinition::template(parts.uri, parts.name)
                .expect("#[resource] parses its template with the same grammar")
        } else {
            crate::ResourceDefinition::fixed(parts.uri, parts.name)
        };
        if let Some(title) = parts.title {
            definition = definition.with_title(title);
        }
        if let Some(description) = parts.description {
            definition = definition.with_description(description);
        }
        if let Some(mime_type) = parts.mime_type {
            definition = definition.with_mime_type(mime_type);
        }
        if let Some(size) = parts.size {
            definition = definition.with_size(size);
        }
        if let Some(annotations) = parts.annotations {
            definition = definition.with_annotations(macro_json(annotations));
        }
        if let Some(icons) = parts.icons {
            definition = definition.with_icons(macro_json(icons));
        }
        if let Some(serde_json::Value::Object(meta)) = parts.meta.map(macro_json) {
            definition = definition.with_meta(meta);
        }
        definition
    })
}

/// A type a prompt's argument or a URI template's variable can be read into: any `FromStr`
/// type whose error can be shown. `#[prompt]` and `#[resource]` read each parameter through it,
/// spanned at the parameter's type, so that a type that cannot be read is this message, there.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from a string, and prompt arguments and URI template variables arrive as strings",
    label = "`{Self}` does not implement `FromStr` (with an error that implements `Display`)",
    note = "each parameter is read from its string with `FromStr` (a `String` as it is): take a `String` and parse it in the function, or implement `FromStr` for `{Self}`"
)]
pub trait StringArgument: Sized {
    /// The argument `name`, read and taken out of `arguments`, if it was given.
    fn take_from(arguments: &mut StringArgs, name: &str) -> Result<Option<Self>, StringArgError>;
}

impl<T: std::str::FromStr> StringArgument for T
where
    T::Err: std::fmt::Display,
{
    fn take_from(arguments: &mut StringArgs, name: &str) -> Result<Option<T>, StringArgError> {
        arguments.take_optional(name)
    }
}

/// The required argument `name`.
pub fn required_argument<T: StringArgument>(
    arguments: &mut StringArgs,
    name: &str,
) -> Result<T, StringArgError> {
    T::take_from(arguments, name)?.ok_or_else(|| StringArgError::Missing {
        name: name.to_owned(),
    })
}

/// The argument `name`, if it was given.
pub fn optional_argument<T: StringArgument>(
    arguments: &mut StringArgs,
    name: &str,
) -> Result<Option<T>, StringArgError> {
    T::take_from(arguments, name)
}

/// The first of `arguments` that is none of `known`: a client's misspelt argument is its
/// error, as a tool's unknown argument is, rather than a value silently dropped.
pub fn no_other_arguments(arguments: &StringArgs, known: &[&str]) -> Result<(), StringArgError> {
    match arguments.iter().find(|(name, _)| !known.contains(name)) {
        Some((name, _)) => Err(StringArgError::Unknown {
            name: name.to_owned(),
        }),
        None => Ok(()),
    }
}

/// The marker of a completion function that takes `&CompletionRequest` and answers at once.
pub enum SyncCompletion {}
/// The marker of an `async` completion function that takes the `CompletionRequest`.
pub enum AsyncCompletion {}

/// A function named by `#[arg(complete = …)]`: `fn(&CompletionRequest) -> impl
/// IntoCompletions` or `async fn(CompletionRequest) -> impl IntoCompletions`. The marker `M`
/// tells the two apart, as axum's `Handler<T>` tells handlers of different extractors apart,
/// so that one bound takes both.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot complete an argument",
    label = "not a completion function",
    note = "a completion function is `fn(&CompletionRequest) -> T` or `async fn(CompletionRequest) -> T`, where `T` is a `Vec<String>`, a `Vec<&str>`, `Completions`, or a `Result` of one whose error implements `Display`"
)]
pub trait CompletionFn<M> {
    /// Calls the function.
    fn call(self, request: CompletionRequest) -> CompletionFuture;
}

/// What a completion function gives, boxed: a future whose type does not depend on the
/// function's bound, so that a function that is not one is a single error, at its name.
pub type CompletionFuture =
    std::pin::Pin<Box<dyn Future<Output = Result<Completions, String>> + Send>>;

impl<F, R> CompletionFn<SyncCompletion> for F
where
    F: FnOnce(&CompletionRequest) -> R,
    R: IntoCompletions,
{
    fn call(self, request: CompletionRequest) -> CompletionFuture {
        Box::pin(std::future::ready(self(&request).into_completions()))
    }
}

impl<F, Fut> CompletionFn<AsyncCompletion> for F
where
    F: FnOnce(CompletionRequest) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCompletions,
{
    fn call(self, request: CompletionRequest) -> CompletionFuture {
        let completing = self(request);
        Box::pin(async move { completing.await.into_completions() })
    }
}

/// The completions `function` gives for `request`.
pub fn complete<M, F: CompletionFn<M>>(
    function: F,
    request: CompletionRequest,
) -> CompletionFuture {
    function.call(request)
}

/// Whether two tool names are equal, in a `const` context.
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// For generated code (`toolset!`): for each of `names`, the index of the first name equal to
/// it, which is its own index unless an earlier name is the same. `toolset!` asserts, one
/// `const` item per tool, that each tool is its own first.
///
/// The work is O(n log n) comparisons, most of them of two integers: each name is hashed once
/// (FNV-1a over its bytes), the indices are heap-sorted by (hash, name, index), and equal names
/// are then neighbours, the first of them the one given first. Names are compared byte by byte
/// only where their hashes are equal.
pub const fn first_of_each_name<const N: usize>(names: &[&str; N]) -> [usize; N] {
    let mut hashes = [0u64; N];
    let mut order = [0usize; N];
    let mut i = 0;
    while i < N {
        hashes[i] = fnv1a(names[i].as_bytes());
        order[i] = i;
        i += 1;
    }

    // Heap sort of `order`: build a max-heap, then move its top to the end, one at a time.
    let mut start = N / 2;
    while start > 0 {
        start -= 1;
        sift_down(&mut order, start, N, names, &hashes);
    }
    let mut end = N;
    while end > 1 {
        end -= 1;
        let top = order[0];
        order[0] = order[end];
        order[end] = top;
        sift_down(&mut order, 0, end, names, &hashes);
    }

    let mut first = [0usize; N];
    let mut k = 0;
    while k < N {
        let this = order[k];
        first[this] = this;
        if k > 0 {
            let previous = order[k - 1];
            if hashes[previous] == hashes[this] && same_name(names[previous], names[this]) {
                first[this] = first[previous];
            }
        }
        k += 1;
    }
    first
}

/// FNV-1a, 64 bits.
const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

/// Restores the max-heap property of `order[..end]` below `root`.
const fn sift_down<const N: usize>(
    order: &mut [usize; N],
    mut root: usize,
    end: usize,
    names: &[&str; N],
    hashes: &[u64; N],
) {
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && sorts_before(order[child], order[child + 1], names, hashes) {
            child += 1;
        }
        if !sorts_before(order[root], order[child], names, hashes) {
            return;
        }
        let parent = order[root];
        order[root] = order[child];
        order[child] = parent;
        root = child;
    }
}

/// Whether index `a` sorts before index `b`: by hash, then by name, then by index.
const fn sorts_before<const N: usize>(
    a: usize,
    b: usize,
    names: &[&str; N],
    hashes: &[u64; N],
) -> bool {
    if hashes[a] != hashes[b] {
        return hashes[a] < hashes[b];
    }
    let (x, y) = (names[a].as_bytes(), names[b].as_bytes());
    let mut i = 0;
    while i < x.len() && i < y.len() {
        if x[i] != y[i] {
            return x[i] < y[i];
        }
        i += 1;
    }
    if x.len() != y.len() {
        return x.len() < y.len();
    }
    a < b
}

/// For generated code (`toolset!`): a message put together in a `const` context, from pieces
/// known only there (a tool's name), for `panic!("{}", message.as_str())`.
///
/// It holds at most [`ConstMessage::CAPACITY`] bytes: a message that does not fit with room to
/// spare for `…` is cut after a whole character and ends with `…`.
pub struct ConstMessage {
    bytes: [u8; ConstMessage::CAPACITY],
    len: usize,
}

impl ConstMessage {
    /// The most bytes a message holds.
    pub const CAPACITY: usize = 1024;

    /// The pieces, one after the other.
    pub const fn concat(pieces: &[&str]) -> Self {
        const ELLIPSIS: &[u8] = "…".as_bytes();
        let mut message = ConstMessage {
            bytes: [0; Self::CAPACITY],
            len: 0,
        };
        let mut p = 0;
        while p < pieces.len() {
            let piece = pieces[p].as_bytes();
            let mut i = 0;
            while i < piece.len() {
                // One character at a time, so that a cut never splits one.
                let width = match piece[i] {
                    0x00..=0x7f => 1,
                    0xc0..=0xdf => 2,
                    0xe0..=0xef => 3,
                    _ => 4,
                };
                if message.len + width > Self::CAPACITY - ELLIPSIS.len() {
                    let mut e = 0;
                    while e < ELLIPSIS.len() {
                        message.bytes[message.len] = ELLIPSIS[e];
                        message.len += 1;
                        e += 1;
                    }
                    return message;
                }
                let mut w = 0;
                while w < width {
                    message.bytes[message.len] = piece[i + w];
                    message.len += 1;
                    w += 1;
                }
                i += width;
            }
            p += 1;
        }
        message
    }

    /// The message.
    pub const fn as_str(&self) -> &str {
        match std::str::from_utf8(self.bytes.split_at(self.len).0) {
            Ok(text) => text,
            Err(_) => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first index of each name, the slow way.
    fn naive(names: &[&str]) -> Vec<usize> {
        (0..names.len())
            .map(|i| (0..=i).find(|&j| names[j] == names[i]).unwrap())
            .collect()
    }

    #[test]
    fn first_of_each_name_in_a_const() {
        const FIRST: [usize; 6] = first_of_each_name(&["b", "a", "b", "c", "a", "b"]);
        assert_eq!(FIRST, [0, 1, 0, 3, 1, 0]);
        const NONE: [usize; 0] = first_of_each_name(&[]);
        assert_eq!(NONE, [0usize; 0]);
        const ONE: [usize; 1] = first_of_each_name(&["a"]);
        assert_eq!(ONE, [0]);
    }

    #[test]
    fn first_of_each_name_agrees_with_comparing_every_pair() {
        // Short names over two letters (and the empty name), so that many repeat; prefixes of
        // one another, and sets of every size around the heap's levels.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for size in [2, 3, 7, 8, 9, 31, 64, 100, 200] {
            for _ in 0..20 {
                let names: Vec<String> = (0..size)
                    .map(|_| {
                        state = state
                            .wrapping_mul(6_364_136_223_846_793_005)
                            .wrapping_add(1_442_695_040_888_963_407);
                        let len = (state >> 60) as usize % 4;
                        (0..len)
                            .map(|k| if state >> (40 + k) & 1 == 0 { 'a' } else { 'b' })
                            .collect()
                    })
                    .collect();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                let first: Vec<usize> = match size {
                    2 => first_of_each_name::<2>(names[..].try_into().unwrap()).to_vec(),
                    3 => first_of_each_name::<3>(names[..].try_into().unwrap()).to_vec(),
                    7 => first_of_each_name::<7>(names[..].try_into().unwrap()).to_vec(),
                    8 => first_of_each_name::<8>(names[..].try_into().unwrap()).to_vec(),
                    9 => first_of_each_name::<9>(names[..].try_into().unwrap()).to_vec(),
                    31 => first_of_each_name::<31>(names[..].try_into().unwrap()).to_vec(),
                    64 => first_of_each_name::<64>(names[..].try_into().unwrap()).to_vec(),
                    100 => first_of_each_name::<100>(names[..].try_into().unwrap()).to_vec(),
                    _ => first_of_each_name::<200>(names[..].try_into().unwrap()).to_vec(),
                };
                assert_eq!(first, naive(&names), "{names:?}");
            }
        }
    }

    #[test]
    fn messages_are_put_together_and_cut_at_a_character() {
        const MESSAGE: ConstMessage = ConstMessage::concat(&["`A` is \"", "a", "\""]);
        assert_eq!(MESSAGE.as_str(), "`A` is \"a\"");

        let long = "é".repeat(600);
        let cut = ConstMessage::concat(&["x", &long, "never shown"]);
        let cut = cut.as_str();
        assert!(cut.len() <= ConstMessage::CAPACITY, "{}", cut.len());
        assert!(cut.starts_with("xéé") && cut.ends_with("é…"), "{cut}");

        let fits = "y".repeat(ConstMessage::CAPACITY - 3);
        assert_eq!(ConstMessage::concat(&[&fits]).as_str(), fits);
    }
}
