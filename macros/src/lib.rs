//! Procedural macros for [tooldef](https://docs.rs/tooldef). Use them through the `tooldef` crate,
//! which re-exports them; this crate's paths are not stable on their own.
//!
//! The macro follows the shape of `serde_derive`: `ast` parses the function into a tool,
//! `valid` checks it (every problem collected and reported at once), `expand` generates code.
//! `#[prompt]` and `#[resource]` take the same path (one parsed `Item`, one attribute grammar,
//! the same docs, parameters and context), with their own checks and code in `strings`, since
//! their arguments arrive as strings. `#[tools]` takes the same path for each `#[tool]`,
//! `#[prompt]` and `#[resource]` method of its `impl` block; the receiver is the only difference.
#![deny(missing_docs)]

mod ast;
mod attr;
mod ctxt;
mod docs;
mod elicitable;
mod examples;
mod expand;
mod families;
mod json;
mod mcp_attrs;
mod portable;
mod strings;
mod toolset;
mod valid;

use proc_macro::TokenStream;

use attr::Kind;

/// `#[tool]`, `#[prompt]` or `#[resource]` on `input`.
fn item(kind: Kind, args: TokenStream, input: TokenStream) -> TokenStream {
    let args = proc_macro2::TokenStream::from(args);
    // A method of a `#[tools]` block, which has made its item already.
    if expand::expanded_by_tools(&args) {
        return input;
    }
    let input = proc_macro2::TokenStream::from(input);
    match expand::item(kind, args.clone(), input.clone()) {
        Ok(tokens) => tokens.into(),
        // Beside the errors, emit the function and a stand-in for the generated type, so that
        // the user sees our errors and not a cascade of "cannot find function/type".
        Err(errors) => {
            let errors = errors.to_compile_error();
            let fallback = expand::fallback(kind, args, input);
            quote::quote!(#errors #fallback).into()
        }
    }
}

/// Turns a function into a tool that every LLM API accepts.
///
/// ```
/// use tooldef::{Target, Tool, tool};
///
/// /// Get the weather forecast for a city.
/// #[tool(read_only)]
/// fn get_weather(
///     /// The city, e.g. "Lisbon".
///     city: String,
///     /// How many days to forecast.
///     #[arg(default = 3)]
///     #[schemars(range(min = 1, max = 14))]
///     days: u32,
/// ) -> String {
///     format!("{days} days of sun in {city}")
/// }
///
/// let definition = GetWeather.definition();
/// assert_eq!(definition.description(), Some("Get the weather forecast for a city."));
/// let gemini = definition.to_json(Target::Gemini).unwrap();
/// assert_eq!(
///     gemini["parameters"]["properties"]["days"]["description"],
///     "How many days to forecast. Default: 3."
/// );
/// assert_eq!(get_weather("Lisbon".into(), 2), "2 days of sun in Lisbon"); // still a function
/// ```
///
/// Generated beside the function, which is left as it is: a unit struct named after it in
/// UpperCamelCase (`GetWeather`), as visible as the function, implementing `tooldef::Tool`, and
/// the struct of its arguments (`GetWeatherArgs`). Add it to a `ToolSet` to list and call it
/// (`ToolSet::builder().tool(GetWeather)`, or `toolset![GetWeather]`).
///
/// The guide, with each part at work (output and errors, context, `#[tools]`, serving over
/// MCP), is the `tooldef` crate's documentation (<https://docs.rs/tooldef>). In short:
///
/// # The function
///
/// - Its doc comment is the tool's description (or `#[tool(description = "…")]`); a `///`
///   comment on a parameter is that argument's description, and so is an entry of a rustdoc
///   `# Arguments` list (`` * `city` - The city. ``), which is then left out of the tool's
///   description.
/// - Each parameter is an argument, in order: a property of the input schema, named after the
///   parameter, required unless it is an `Option<T>` or has a default. Its type derives
///   `Deserialize` and `JsonSchema`, and `Portable` (or is one of the standard types that are).
///   `Args(search): Args<SearchArgs>` takes the whole argument object as one type instead.
/// - Parameters of type `State<T>`, `CallContext`, `CancellationToken`, `Progress`,
///   `ClientLog`, `Elicit` and `Sample`, and any marked `#[context]` whose type implements
///   `FromCallContext`, are filled by the caller, not the model, and are not in the schema.
/// - It may be `async`. It returns any `Serialize` type (one that also implements `JsonSchema`
///   gives the tool an output schema and MCP structured content), a `ToolOutput` (content
///   blocks of its own), or a `Result` of one whose error (`Display`) is what the model reads.
///
/// # `#[tool(…)]`
///
/// - `name = "…"`: the tool's name (by default the function's); `title = "…"`: a title for
///   display; `description = "…"`: instead of the doc comment.
/// - `read_only`, `destructive`, `idempotent`, `open_world` (each alone `true`, or `= BOOL`):
///   MCP's annotations.
/// - `strict = false`: opt out of the portability checks; the tool renders non-strict for
///   OpenAI and Anthropic, and maps and `serde_json::Value` are accepted.
/// - `type_name = "…"`: the generated type's name; `crate = "path"`: a renamed `tooldef`.
/// - `example(city = "Paris", days = 3)`, repeatable: example arguments shown to the model,
///   below.
/// - `defer_loading` (or `= BOOL`): the tool is loaded only when the model searches for it
///   (`"defer_loading": true` for Responses and Anthropic, which then need a tool-search tool in
///   the request; the other targets list it as any other tool).
/// - `icon`, `meta`, `task`: for MCP clients, below.
///
/// Several `#[tool(…)]` attributes on one function (or method) are one, written over several,
/// for examples one a line; a key that is not repeatable is still given once.
///
/// Whatever a target would refuse is a compile error at the token at fault: a name a target
/// refuses, a missing or over-long description, two arguments of one name, an unknown key (with
/// "did you mean"), a borrowed or generic argument, and, through trait bounds, an argument type
/// some target cannot carry (a map, `serde_json::Value`, a tuple, a 128-bit integer, a type
/// that does not derive `Portable`).
///
/// # Examples of arguments
///
/// `example(…)` gives one example call: each key is a parameter's Rust name, each value a Rust
/// expression of the parameter's type, so that the compiler checks it and renaming a parameter
/// breaks the example. A string literal is taken for a `String`, and a plain value for an
/// `Option<T>` (`Some` is added unless the value is `None` or `Some(…)`); anything else is plain
/// Rust (`Unit::Celsius`, `vec![…]`, a constant, `Self::…` in a `#[tools]` block). Each value is
/// written with its `Serialize` impl, under the argument's wire name (after `rename`), once,
/// when the definition is first made; what is left out is left out (a default is not filled
/// in). Anthropic receives them as `input_examples`, MCP as the input schema's `examples`, and
/// the other targets at the end of the description.
///
/// ```
/// use tooldef::{Target, Tool, tool};
///
/// /// Get the weather forecast for a city.
/// #[tool(example(city = "Paris"), example(city = "Lisbon", days = 7, units = "imperial"))]
/// fn forecast(
///     city: String,
///     #[arg(default = 3)]
///     #[schemars(range(min = 1, max = 14))]
///     days: u32,
///     #[arg(rename = "unitSystem")] units: Option<String>,
/// ) -> String {
///     format!("{days} days of sun in {city} ({units:?})")
/// }
///
/// let anthropic = Forecast.definition().to_json(Target::Anthropic).unwrap();
/// assert_eq!(
///     anthropic["input_examples"],
///     serde_json::json!([
///         {"city": "Paris"},
///         {"city": "Lisbon", "days": 7, "unitSystem": "imperial"},
///     ])
/// );
/// ```
///
/// The macro refuses, at the token at fault: an example without a required argument (one that
/// is not an `Option` and has no default), a key that is no parameter (with "did you mean", and
/// the parameter meant when the key is its wire name), a context parameter, a key given twice,
/// and a literal outside a `range(…)` or a string literal outside a `length(…)` that the
/// parameter's `#[schemars]`, `#[validate]` or `#[garde]` declares. A value of the wrong type is
/// rustc's error, at the value. What only the schema can say (a `pattern`, a `format`, a value
/// that is not a literal) is checked by `ToolSetBuilder::build`, which refuses an example the
/// tool's schema refuses (`BuildError::InvalidExample`). Tools taking `Args<T>` take no
/// `example`, since the macro cannot see `T`'s fields.
///
/// # Parameter attributes
///
/// `#[arg(…)]` on a parameter takes these keys:
///
/// - `rename = "pageSize"`: the argument's name on the wire (a forwarded
///   `#[serde(rename = "…")]` does the same; two parameters may not end up with one name).
/// - `description = "…"`: the argument's description, instead of a `///` comment.
/// - `default` or `default = EXPR`: the argument is optional and takes `Default::default()` or
///   `EXPR` when absent (or `null`). On an `Option<T>` parameter, `default = Some(…)` is refused,
///   since `None` could then never be chosen: take `T` with that default instead.
/// - `deprecated` or `deprecated = "use `limit` instead"`: the property's schema says
///   `"deprecated": true`, and a note is added to its description ("Deprecated. Use `limit`
///   instead."). Targets without the keyword say "Deprecated." in the description. (`#[deprecated]`
///   itself is not allowed on function parameters.)
/// - `header = "X-Region"`: the property's schema says `"x-mcp-header": "X-Region"`, so that MCP
///   clients also send the argument in an `Mcp-Param-X-Region` HTTP header (MCP 2026-07-28). The
///   parameter must be a string, an integer or a `bool`; other targets drop the keyword.
///
/// # MCP attributes of the tool
///
/// - `icon = "https://…"` or `icon(src = "…", mime_type = "image/png", sizes = "48x48 96x96",
///   theme = "light")`, repeatable: MCP `icons`.
/// - `meta(key = VALUE, "com.example/tags" = ["a", "b"])`: MCP `_meta`; values are JSON written
///   as literals (strings, numbers, `true`, `false`, `null`, `[…]`, `{"key": …}`).
/// - `task` or `task = BOOL`: the tool may run as an MCP task.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    item(Kind::Tool, args, input)
}

/// Turns a function into an MCP prompt: messages a user picks in the client and fills in
/// (`prompts/list`, `prompts/get`).
///
/// ```
/// use tooldef::{CompletionRequest, Prompt, PromptMessage, prompt};
///
/// /// Plan a trip to a city.
/// #[prompt(title = "Plan a trip")]
/// fn plan_trip(
///     /// The city to visit.
///     #[arg(complete = suggest_city)]
///     city: String,
///     /// How many days the trip lasts.
///     #[arg(default = 3)]
///     days: u32,
/// ) -> Vec<PromptMessage> {
///     vec![PromptMessage::user(format!("Plan a {days}-day trip to {city}."))]
/// }
///
/// fn suggest_city(request: &CompletionRequest) -> Vec<&'static str> {
///     let cities = ["Lisbon", "London", "Lyon"];
///     cities.into_iter().filter(|city| city.starts_with(&request.value)).collect()
/// }
///
/// let definition = PlanTrip.definition();
/// assert_eq!(definition.description(), Some("Plan a trip to a city."));
/// let arguments = definition.arguments();
/// assert_eq!((arguments[0].name.as_ref(), arguments[0].required), ("city", true));
/// assert_eq!((arguments[1].name.as_ref(), arguments[1].required), ("days", false));
/// // Served with the tools: `ToolSet::builder().prompt(PlanTrip)`.
/// ```
///
/// Generated beside the function: a unit struct named after it in UpperCamelCase (`PlanTrip`),
/// as visible as the function, implementing `tooldef::Prompt`. On a method of a `#[tools]`
/// block, the struct holds the block's value as a tool's does (`LibraryPlanTrip(Arc<Library>)`)
/// and the block's `toolset()` adds the prompt.
///
/// # `#[prompt(…)]`
///
/// - `name = "…"`: the prompt's name (by default the function's).
/// - `title = "…"`: a title for display.
/// - `description = "…"`: instead of the doc comment. Both may be left out: MCP's description
///   is optional.
/// - `icon = "https://…"` or `icon(src = "…", mime_type = "…", sizes = "…", theme = "…")`, and
///   `meta(key = VALUE, …)`: MCP `icons` and `_meta`, as on `#[tool]`.
/// - `type_name = "…"`: the generated type's name; `crate = "path"`: a renamed `tooldef`.
///
/// # Arguments
///
/// Each parameter that is not context is an argument, in order: named after the parameter (or
/// `#[arg(rename = "…")]`), described by the `///` comment on it (or `#[arg(description =
/// "…")]`, or an entry of the doc comment's `# Arguments` section), and required unless it is
/// an `Option<T>` or has `#[arg(default)]` / `#[arg(default = EXPR)]`. MCP sends arguments as
/// strings: each is read with its type's `FromStr` (a `String` as it is), and a type that has
/// none (a struct, a `Vec`) is a compile error at the type. A missing required argument, a
/// string the type cannot read and an argument the prompt does not have are errors the client
/// reads (`` prompt `plan_trip`: argument `days`: "five" is not valid here (invalid digit found
/// in string) ``).
///
/// `#[arg(complete = path)]` names the function that suggests values for the argument as the
/// user types it (MCP `completion/complete`): `fn(&CompletionRequest) -> T` or `async
/// fn(CompletionRequest) -> T`, where `T` is a `Vec<String>`, a `Vec<&str>`, `Completions` or a
/// `Result` of one; the request holds the other arguments given so far.
///
/// Context parameters (`State<T>`, `CallContext`, `CancellationToken`, anything
/// `FromCallContext` marked `#[context]`) are filled as a tool's are. The function may be
/// `async`; it returns text (`String`, `&'static str`: one user message), a `PromptMessage`, a
/// `Vec<PromptMessage>`, a `PromptReply`, or a `Result` of one whose error (`Display`) the client
/// reads.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    item(Kind::Prompt, args, input)
}

/// Turns a function into an MCP resource: data at a fixed URI (`resources/list`), or at every
/// URI of a template (`resources/templates/list`), read with `resources/read`.
///
/// ```
/// use tooldef::{Resource, ResourceUri, resource};
///
/// /// The project's README.
/// #[resource(uri = "docs://readme", mime_type = "text/markdown", size = 9)]
/// fn readme() -> &'static str {
///     "# tooldef"
/// }
///
/// /// A user's profile, in JSON.
/// #[resource(
///     uri = "users://{id}/profile{?fields}",
///     name = "profile",
///     mime_type = "application/json",
///     annotations(audience = ["assistant"], priority = 0.8),
/// )]
/// async fn user_profile(id: u64, fields: Option<String>, uri: ResourceUri) -> String {
///     format!(r#"{{"id": {id}, "fields": {:?}, "uri": "{uri}"}}"#, fields.unwrap_or_default())
/// }
///
/// assert_eq!(Readme.definition().uri(), "docs://readme");
/// let template = UserProfile.definition();
/// assert_eq!((template.uri(), template.name()), ("users://{id}/profile{?fields}", "profile"));
/// // Served with the tools: `ToolSet::builder().resource(Readme).resource(UserProfile)`.
/// ```
///
/// Generated beside the function: a unit struct named after it in UpperCamelCase (`Readme`),
/// as visible as the function, implementing `tooldef::Resource`; on a method of a `#[tools]`
/// block, the struct holds the block's value and the block's `toolset()` adds the resource.
///
/// # `#[resource(…)]`
///
/// - `uri = "…"` (required): a fixed URI (`"docs://readme"`), or a URI template (RFC 6570,
///   recognised by its `{`) of the expressions a server can match: `{var}` (within a path
///   segment), `{+var}` (any characters, `/` included), `{/var}` (a `/` and a segment) and
///   `{?a,b}` / `{&a}` (query parameters, last). The template is parsed at compile time with the
///   grammar the server matches URIs with.
/// - `name = "…"`: the resource's name (by default the function's).
/// - `title = "…"`, and `description = "…"` instead of the doc comment (whole: MCP describes a
///   template as a whole, so its variables are described there).
/// - `mime_type = "type/subtype"`: also given to the text or bytes the function returns.
/// - `size = N`: the size in bytes, for a fixed URI (a template stands for many resources).
/// - `annotations(audience = ["user", "assistant"], priority = 0.5, last_modified =
///   "2025-01-12T15:00:58Z")`: MCP `annotations`.
/// - `icon`, `meta(…)`, `type_name`, `crate`: as on `#[tool]`.
///
/// # Parameters
///
/// A template's variables are the function's parameters, by name (or `#[arg(rename = "…")]`),
/// each read from the URI's text with its type's `FromStr` (percent-decoded; a `String` as it
/// is): every variable must have a parameter and every parameter a variable, a query variable
/// (`{?fields}`) is an `Option<T>` or has `#[arg(default …)]`, and a fixed URI takes none. A
/// value the type cannot read is an error the client reads. `#[arg(complete = path)]` names a
/// variable's completion function, as for a prompt's argument. A parameter of type
/// `ResourceUri` is given the URI read; context parameters are filled as a tool's are.
///
/// The function may be `async`; it returns text (`String`, `&'static str`), bytes (`Vec<u8>`),
/// `ResourceContents` or a `Vec` of them, or a `Result` of one whose error (`Display`) the
/// client reads.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    item(Kind::Resource, args, input)
}

/// Makes the `#[tool]` methods of an `impl` block the tools of one value, as rmcp's
/// `#[tool_router]` does (and its `#[prompt]` and `#[resource]` methods its prompts and
/// resources).
///
/// ```
/// use std::sync::Arc;
/// use tooldef::{prompt, tool, tools};
///
/// struct Library {
///     books: Vec<String>,
/// }
///
/// #[tools]
/// impl Library {
///     /// Find books by title.
///     #[tool(read_only)]
///     async fn search(
///         &self,
///         /// Words of the title.
///         query: String,
///     ) -> Vec<String> {
///         self.books.iter().filter(|b| b.contains(&query)).cloned().collect()
///     }
///
///     /// Recommend a book.
///     #[prompt]
///     fn recommend(&self) -> String {
///         format!("Read {}.", self.books.first().map_or("anything", String::as_str))
///     }
///
///     fn helper(&self) {} // not a tool: left alone
/// }
///
/// fn main() -> Result<(), tooldef::BuildError> {
///     let library = Arc::new(Library { books: vec![] });
///     let tools = library.toolset().build()?; // a `ToolSetBuilder`: add tools, state… first
///     assert_eq!((tools.len(), tools.prompts().count()), (1, 1));
///     Ok(())
/// }
/// ```
///
/// (The block's type is named from a module the macro generates beside it, so a `#[tools]`
/// block goes at module level, not inside a function's body.)
///
/// Each `#[tool]` method is a tool exactly as a function under `#[tool]` would be (the same
/// attributes, parameters, context, return types and compile-time checks), called on the value;
/// each `#[prompt]` and `#[resource]` method is likewise a prompt or a resource.
/// It takes `&self`, or `self: Arc<Self>` to keep the value beyond the call; an associated
/// function without `self` is a tool too. Calls run concurrently, so `&mut self` is refused:
/// keep what changes behind a `Mutex` or an atomic.
///
/// Generated beside the block, for a method `search` of `impl Library`:
///
/// - `Library::toolset(self: Arc<Self>) -> ToolSetBuilder`: every tool, prompt and resource of
///   the block, each holding a clone of the `Arc` (a block whose type already has a method
///   `toolset` is refused);
/// - `LibrarySearch(pub Arc<Library>)`, the tool's type, as visible as the method (to add one
///   tool alone, e.g. `builder.tool_with_timeout(LibrarySearch(library.clone()), limit)`;
///   `#[tool(type_name = "…")]` names it otherwise), and `LibrarySearchArgs`, its arguments.
///
/// The block must be an inherent `impl` of one concrete type without lifetimes: the tools are
/// `Send + Sync + 'static`. `#[tools(crate = "path")]` names a renamed `tooldef` dependency.
#[proc_macro_attribute]
pub fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    let args = proc_macro2::TokenStream::from(args);
    let input = proc_macro2::TokenStream::from(input);
    match expand::tools(args.clone(), input.clone()) {
        Ok(tokens) => tokens.into(),
        // As for `#[tool]`: the block and stand-ins beside the errors, so that they are the only
        // ones.
        Err(errors) => {
            let errors = errors.to_compile_error();
            let fallback = expand::tools_fallback(args, input);
            quote::quote!(#errors #fallback).into()
        }
    }
}

/// Opts a type in to tooldef's portability checks: `#[derive(Deserialize, JsonSchema, Portable)]`.
///
/// Every field that reaches the schema must itself be portable; the error for one that is not
/// points at that field. `#[portable(crate = "path")]` names a renamed `tooldef` dependency.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use tooldef::{Portable, Target, Tool, tool};
///
/// /// A room booking.
/// #[derive(Deserialize, JsonSchema, Portable)]
/// struct Booking {
///     /// The guest's name.
///     name: String,
///     /// How many nights.
///     nights: u16,
/// }
///
/// /// Book a room.
/// #[tool]
/// fn book(booking: Booking) -> String {
///     format!("{} for {} nights", booking.name, booking.nights)
/// }
///
/// let chat = Book.definition().to_json(Target::ChatCompletions).unwrap();
/// assert_eq!(chat["function"]["strict"], true);
/// ```
///
/// A field no target can take as it is, a map say, is a compile error at that field:
///
/// ```compile_fail,E0277
/// use std::collections::HashMap;
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use tooldef::Portable;
///
/// #[derive(Deserialize, JsonSchema, Portable)]
/// struct Labels {
///     labels: HashMap<String, String>, // error: a map cannot be an argument of a portable tool
/// }
/// ```
#[proc_macro_derive(Portable, attributes(portable, serde, schemars))]
pub fn derive_portable(input: TokenStream) -> TokenStream {
    portable::derive(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Makes a type something a tool can ask the user for with `Elicit::ask` (MCP elicitation):
/// `#[derive(Deserialize, JsonSchema, Elicitable)]`.
///
/// On a struct of named fields, it checks each field is one an elicitation form can show (a
/// string, a number, an integer, a boolean, an enum of unit variants, an `Option` of one, or a
/// `Vec` of such an enum); the error for one that is not points at that field. On an enum of
/// unit variants, it makes the enum such a field. `#[elicitable(crate = "path")]` names a
/// renamed `tooldef` dependency.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use tooldef::Elicitable;
///
/// /// A pizza's size.
/// #[derive(Deserialize, JsonSchema, Elicitable)]
/// #[serde(rename_all = "snake_case")]
/// enum Size {
///     Small,
///     Large,
/// }
///
/// #[derive(Deserialize, JsonSchema, Elicitable)]
/// struct Order {
///     /// How large?
///     size: Size,
///     /// Extra cheese?
///     cheese: bool,
/// }
///
/// // The form a tool's `elicit.ask::<Order>(…)` shows the user.
/// let form = Order::form().unwrap();
/// assert_eq!(form["properties"]["size"]["enum"], serde_json::json!(["small", "large"]));
/// assert_eq!(form["properties"]["cheese"]["type"], "boolean");
/// ```
///
/// A field a flat form cannot show, a nested struct say, is a compile error at that field:
///
/// ```compile_fail,E0277
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use tooldef::Elicitable;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Address {
///     street: String,
/// }
///
/// #[derive(Deserialize, JsonSchema, Elicitable)]
/// struct Delivery {
///     address: Address, // error: an elicitation form cannot have a field of type `Address`
/// }
/// ```
#[proc_macro_derive(Elicitable, attributes(elicitable, serde, schemars))]
pub fn derive_elicitable(input: TokenStream) -> TokenStream {
    elicitable::derive(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// A `ToolSetBuilder` holding the listed tools (unit tool types, as `#[tool]` makes them), whose
/// names are checked to be distinct at compile time: `toolset![GetWeather, ConvertCurrency]`.
///
/// ```
/// use tooldef::{tool, toolset};
///
/// /// Add two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// /// Multiply two numbers.
/// #[tool]
/// fn multiply(a: i64, b: i64) -> i64 {
///     a * b
/// }
///
/// // A `ToolSetBuilder`: give it state, limits or more tools before `build`.
/// let tools = toolset![Add, Multiply].build().unwrap();
/// assert_eq!(tools.len(), 2);
/// ```
///
/// Two tools of one name do not compile (`ToolSetBuilder::tool` finds it only at `build`):
///
/// ```compile_fail
/// use tooldef::{tool, toolset};
///
/// /// Add two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// /// Add two numbers, under the same name.
/// #[tool(name = "add")]
/// fn plus(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let tools = toolset![Add, Plus];
/// ```
#[proc_macro]
pub fn toolset(input: TokenStream) -> TokenStream {
    toolset::expand(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
