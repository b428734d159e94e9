//! Procedural macros for [tooldef](https://docs.rs/tooldef). Use them through the `tooldef` crate,
//! which re-exports them; this crate's paths are not stable on their own.
//!
//! The macro follows the shape of `serde_derive`: `ast` parses the function into a tool,
//! `valid` checks it (every problem collected and reported at once), `expand` generates code.
//! `#[tools]` takes the same path for each `#[tool]` method of its `impl` block; the receiver is
//! the only difference.
#![deny(missing_docs)]

mod ast;
mod attr;
mod ctxt;
mod docs;
mod elicitable;
mod expand;
mod families;
mod json;
mod mcp_attrs;
mod portable;
mod toolset;
mod valid;

use proc_macro::TokenStream;

/// Turns a function into a tool that every LLM API accepts.
///
/// See the `tooldef` crate's documentation for the full grammar.
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
    let args = proc_macro2::TokenStream::from(args);
    // A method of a `#[tools]` block, which has made its tool already.
    if expand::expanded_by_tools(&args) {
        return input;
    }
    let input = proc_macro2::TokenStream::from(input);
    match expand::tool(args.clone(), input.clone()) {
        Ok(tokens) => tokens.into(),
        // Beside the errors, emit the function and a stand-in for the tool type, so that the
        // user sees our errors and not a cascade of "cannot find function/type".
        Err(errors) => {
            let errors = errors.to_compile_error();
            let fallback = expand::fallback(args, input);
            quote::quote!(#errors #fallback).into()
        }
    }
}

/// Makes the `#[tool]` methods of an `impl` block the tools of one value, as rmcp's
/// `#[tool_router]` does.
///
/// ```ignore
/// use std::sync::Arc;
/// use tooldef::{tool, tools};
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
///     fn helper(&self) {} // not a tool: left alone
/// }
///
/// let library = Arc::new(Library { books: vec![] });
/// let tools = library.toolset().build()?; // a `ToolSetBuilder`: add tools, state, timeouts first
/// ```
///
/// Each `#[tool]` method is a tool exactly as a function under `#[tool]` would be (the same
/// attributes, parameters, context, return types and compile-time checks), called on the value.
/// It takes `&self`, or `self: Arc<Self>` to keep the value beyond the call; an associated
/// function without `self` is a tool too. Calls run concurrently, so `&mut self` is refused:
/// keep what changes behind a `Mutex` or an atomic.
///
/// Generated beside the block, for a method `search` of `impl Library`:
///
/// - `Library::toolset(self: Arc<Self>) -> ToolSetBuilder`: every tool of the block, each
///   holding a clone of the `Arc` (a block whose type already has a method `toolset` is refused);
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
#[proc_macro_derive(Elicitable, attributes(elicitable, serde, schemars))]
pub fn derive_elicitable(input: TokenStream) -> TokenStream {
    elicitable::derive(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// A `ToolSetBuilder` holding the listed tools (unit tool types, as `#[tool]` makes them), whose
/// names are checked to be distinct at compile time: `toolset![GetWeather, ConvertCurrency]`.
#[proc_macro]
pub fn toolset(input: TokenStream) -> TokenStream {
    toolset::expand(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
