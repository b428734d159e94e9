//! Code generation: the argument struct, the tool type and its `Tool` implementation, for a
//! function under `#[tool]` and for each `#[tool]` method of a `#[tools]` block (which also gets
//! the `toolset` method). What every kind of item shares (its type, its hidden module, the
//! method's place in its block, the stand-ins emitted beside errors) is here too; a prompt's and
//! a resource's own code is in `strings::expand`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ImplItem, ImplItemFn, Path, ReturnType, Type, Visibility};

use crate::ast::{Item, Param, ParamKind, ReceiverKind, ToolImpl, unraw};
use crate::attr::Kind;
use crate::ctxt::Ctxt;
use crate::valid;

/// The method `#[tools]` gives the block's type: its tools, in a `ToolSetBuilder`. Named as the
/// `toolset!` macro is, which gives the same for free-function tools.
pub const TOOLSET_METHOD: &str = "toolset";

/// Parses, validates and expands one `#[tool]`, `#[prompt]` or `#[resource]` (`kind`).
pub fn item(kind: Kind, args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
    let cx = Ctxt::default();
    let item = Item::from_tokens(&cx, kind, args, input);
    if let Some(item) = &item {
        valid::check(&cx, item);
    }
    cx.check()?;
    match item {
        Some(item) => Ok(expand(&item)),
        None => Err(syn::Error::new(
            Span::call_site(),
            format!("#[{}] could not parse its input", kind.name()),
        )),
    }
}

/// Parses, validates and expands one `#[tools]` block, every tool of it through the same code
/// as a function's.
pub fn tools(args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
    let cx = Ctxt::default();
    let block = ToolImpl::from_tokens(&cx, args, input);
    if let Some(block) = &block {
        valid::check_impl(&cx, block);
    }
    cx.check()?;
    match block {
        Some(block) => Ok(expand_impl(&block)),
        None => Err(syn::Error::new(
            Span::call_site(),
            "#[tools] could not parse its input",
        )),
    }
}

/// What to emit beside errors: the function (minus the attributes only the macro reads) and a
/// stand-in type implementing `Tool` (or `Prompt`, `Resource`), so that code using it still
/// resolves. It never runs: the errors stop compilation.
pub fn fallback(kind: Kind, args: TokenStream, input: TokenStream) -> TokenStream {
    let Ok(mut func) = syn::parse2::<syn::ItemFn>(input.clone()) else {
        return crate::ast::strip_param_attributes(input);
    };
    // Further `#[tool(…)]`s were read with this one (and reported); left on the function, they
    // would make the macro run again.
    let args = crate::ast::take_repeated_attributes(kind, args, &mut func.attrs);
    crate::ast::strip_signature_attributes(&mut func.sig);
    let item = quote!(#func);
    // A method sits in an `impl` block, where a struct or an `impl` cannot: the method alone,
    // so that our error is the only one.
    if func.sig.receiver().is_some() {
        return item;
    }
    let attrs = crate::attr::ItemAttrs::parse(&Ctxt::default(), kind, args);
    let krate = crate_path(attrs.crate_path.as_ref());
    let tool_ident = crate::ast::type_ident(&attrs, &func.sig.ident, None);
    let name = unraw(&func.sig.ident);
    let (tool_type, tool_path) = tool_type(&ToolType {
        kind,
        ident: &tool_ident,
        vis: &func.vis,
        module: free_module(kind, &func.sig.ident),
        krate: &krate,
        doc: None,
        holds: None,
    });
    let stand_in = stand_in_impl(kind, &krate, &tool_path, &name);
    quote! {
        #item

        #tool_type

        #stand_in
    }
}

/// What to emit beside a `#[tools]` block's errors: the block with its methods as written
/// (minus the attributes only the macro reads) and, where the block could have had them, the
/// `toolset` method and stand-in tool types, so that code using them still resolves.
pub fn tools_fallback(args: TokenStream, input: TokenStream) -> TokenStream {
    let Some(block) = ToolImpl::from_tokens(&Ctxt::default(), args, input.clone()) else {
        return input;
    };
    let mut item = block.item.clone();
    for (index, method) in &block.items {
        item.items[*index] = ImplItem::Fn(method_item(method));
    }
    let has_toolset = item
        .items
        .iter()
        .any(|i| matches!(i, ImplItem::Fn(method) if method.sig.ident == TOOLSET_METHOD));
    // A trait impl cannot take a method of ours; a generic or borrowing type cannot be held.
    if item.trait_.is_some() || has_toolset {
        return quote!(#item);
    }
    let krate = crate_path(block.attrs.crate_path.as_ref());
    let holdable = item.generics.params.is_empty()
        && block.self_ident.is_some()
        && !crate::ast::as_written(&*item.self_ty).contains('\'');
    let mut stand_ins = Vec::new();
    let mut paths = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut kept = Vec::new();
    for (_, method) in block.items.iter().filter(|_| holdable) {
        let ident = method.type_ident();
        if !seen.insert(ident.to_string()) {
            continue;
        }
        let (tool_type, tool_path) = tool_type(&ToolType {
            kind: method.kind,
            ident: &ident,
            vis: &method.func.vis,
            module: method_module(&ident),
            krate: &tool_krate(method),
            doc: None,
            holds: Some(&item.self_ty),
        });
        stand_ins.push(tool_type);
        stand_ins.push(stand_in_impl(
            method.kind,
            &tool_krate(method),
            &tool_path,
            &method.wire_name(),
        ));
        kept.push(method);
        paths.push(tool_path);
    }
    item.items.push(toolset_method(&krate, &kept, &paths));
    quote! {
        #item

        #(#stand_ins)*
    }
}

/// A `Tool` (or `Prompt`, `Resource`) impl that never runs, for an item whose errors stop
/// compilation.
fn stand_in_impl(
    kind: Kind,
    krate: &TokenStream,
    tool_path: &TokenStream,
    name: &str,
) -> TokenStream {
    let unreachable = quote! {
        ::std::unreachable!("#[tool], #[prompt] or #[resource] reported a compile error")
    };
    match kind {
        Kind::Tool => quote! {
            impl #krate::Tool for #tool_path {
                type Args = ();
                type Output = ();
                const NAME: &'static str = #name;
                fn definition(&self) -> &'static #krate::ToolDefinition {
                    ::std::unreachable!("#[tool] reported a compile error")
                }
                fn output(
                    _: (),
                ) -> ::std::result::Result<#krate::ReturnValue, ::std::string::String> {
                    ::std::unreachable!("#[tool] reported a compile error")
                }
                fn call(
                    &self,
                    _: (),
                    _: #krate::CallContext,
                ) -> impl ::std::future::Future<
                    Output = ::std::result::Result<(), #krate::ContextError>,
                > + ::std::marker::Send {
                    async { ::std::result::Result::Ok(()) }
                }
            }
        },
        Kind::Prompt => quote! {
            impl #krate::Prompt for #tool_path {
                fn definition(&self) -> &'static #krate::PromptDefinition {
                    #unreachable
                }
                fn get(
                    &self,
                    _: #krate::StringArgs,
                    _: #krate::CallContext,
                ) -> impl ::std::future::Future<
                    Output = ::std::result::Result<#krate::PromptReply, #krate::PromptError>,
                > + ::std::marker::Send {
                    async { #unreachable }
                }
            }
        },
        Kind::Resource => quote! {
            impl #krate::Resource for #tool_path {
                fn definition(&self) -> &'static #krate::ResourceDefinition {
                    #unreachable
                }
                fn read(
                    &self,
                    _: &str,
                    _: #krate::StringArgs,
                    _: #krate::CallContext,
                ) -> impl ::std::future::Future<
                    Output = ::std::result::Result<
                        ::std::vec::Vec<#krate::ResourceContents>,
                        #krate::ResourceError,
                    >,
                > + ::std::marker::Send {
                    async { #unreachable }
                }
            }
        },
    }
}

/// `Tool::needed_state` (and `Prompt`'s, `Resource`'s): the state each context parameter
/// needs, for `ToolSetBuilder::build` to check. Nothing when no parameter is context, so that
/// the trait's default (none) applies and a plain tool costs no code for it.
pub(crate) fn needed_state_method(params: &[Param], krate: &TokenStream) -> TokenStream {
    let context: Vec<&Type> = params
        .iter()
        .filter(|param| matches!(param.kind, ParamKind::Context))
        .map(|param| &param.ty)
        .collect();
    if context.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn needed_state(&self) -> ::std::vec::Vec<#krate::NeededState> {
            [#(<#context as #krate::FromCallContext>::needed_state()),*]
                .into_iter()
                .flatten()
                .collect()
        }
    }
}

pub(crate) fn crate_path(path: Option<&Path>) -> TokenStream {
    match path {
        Some(path) => quote!(#path),
        None => quote!(::tooldef),
    }
}

pub(crate) fn tool_krate(tool: &Item) -> TokenStream {
    crate_path(tool.attrs.crate_path.as_ref())
}

/// The hidden module of a function's tool (prompt, resource) type: named after the function,
/// which is unique in its module.
pub(crate) fn free_module(kind: Kind, fn_ident: &Ident) -> Ident {
    format_ident!("__tooldef_{}_{}", kind.name(), unraw(fn_ident))
}

/// The hidden module of a method's tool type: named after the type, which is unique in the
/// module (two methods called `search` in two blocks are `LibrarySearch` and `ShopSearch`).
pub(crate) fn method_module(tool_ident: &Ident) -> Ident {
    format_ident!("__tooldef_method_{}", tool_ident)
}

/// A tool's (prompt's, resource's) Rust type, as [`tool_type`] declares it.
pub(crate) struct ToolType<'a> {
    pub kind: Kind,
    pub ident: &'a Ident,
    /// The function's or method's visibility, which the type gets.
    pub vis: &'a Visibility,
    pub module: Ident,
    pub krate: &'a TokenStream,
    /// Its doc comment; `None` for a stand-in.
    pub doc: Option<&'a str>,
    /// For a method's tool, the block's type: the tool holds an `Arc` of it.
    pub holds: Option<&'a Type>,
}

/// The tool's struct, and the path to it for the generated impls: a unit struct for a function,
/// a tuple struct of an `Arc` of the block's type for a method.
///
/// The struct is defined in a hidden module and brought into the function's module by a glob
/// import, which another item of that name (a user's `struct Stats` beside `#[tool] fn stats`)
/// shadows without an error of rustc's: the derives and impls still apply to the tool's struct,
/// through its path, and a check beside them reports the clash with what to do (name the tool's
/// type otherwise with `#[tool(type_name = "…")]`) as the only error.
pub(crate) fn tool_type(spec: &ToolType) -> (TokenStream, TokenStream) {
    let ToolType {
        kind,
        ident,
        vis,
        module,
        krate,
        doc,
        holds,
    } = spec;
    let inner_vis = visibility_from_child(vis);
    let path = quote!(#module::#ident);
    let assert = match (kind, holds) {
        (Kind::Tool, None) => quote!(assert_tool_type),
        (Kind::Tool, Some(_)) => quote!(assert_method_tool_type),
        (Kind::Prompt, _) => quote!(assert_prompt_type),
        (Kind::Resource, _) => quote!(assert_resource_type),
    };
    let doc = doc.map(|doc| quote!(#[doc = #doc]));
    let documented = doc.is_some();
    let item = match holds {
        None => {
            // What a value of no data needs to be printed and given to several sets; every
            // further derive is code rustc checks again in each tool on every rebuild.
            let derives = documented.then(|| quote!(#[derive(Debug, Clone, Copy)]));
            quote! {
                #doc
                #derives
                #inner_vis struct #ident;
            }
        }
        Some(held) => {
            let held = type_from_child(held);
            let derives = documented.then(|| quote!(#[derive(Clone)]));
            // The type of the block is named as in the block's module; a private type in a
            // public tool is what a public method of a private type is: reachable no further
            // than the type.
            quote! {
                #[allow(unused_imports)]
                use super::*;

                #doc
                #derives
                #[allow(private_interfaces)]
                #inner_vis struct #ident(#inner_vis ::std::sync::Arc<#held>);
            }
        }
    };
    let items = quote! {
        #[doc(hidden)]
        #[allow(non_snake_case)]
        mod #module {
            #item
        }

        #[allow(unused_imports)]
        #vis use #module::*;

        const _: () = #krate::__private::#assert::<#ident, #path>();
    };
    (items, path)
}

/// The block's type as the tool type's hidden module names it: through `use super::*`, except
/// for a path that starts from the block's module itself.
fn type_from_child(ty: &Type) -> TokenStream {
    if let Type::Path(path) = ty
        && path.qself.is_none()
        && path.path.leading_colon.is_none()
    {
        let first = path.path.segments.first().map(|s| s.ident.to_string());
        match first.as_deref() {
            Some("super") => return quote!(super::#path),
            Some("self") => {
                let rest = path.path.segments.iter().skip(1);
                return quote!(super::#(#rest)::*);
            }
            _ => {}
        }
    }
    quote!(#ty)
}

/// The visibility, written in a child module, that is `vis` in its parent: the tool type is as
/// visible as the function, no more (its `Tool` impl names the argument struct, which has the
/// function's visibility).
fn visibility_from_child(vis: &syn::Visibility) -> TokenStream {
    match vis {
        syn::Visibility::Public(_) => quote!(pub),
        syn::Visibility::Inherited => quote!(pub(super)),
        syn::Visibility::Restricted(restricted) => {
            let path = &restricted.path;
            if path.is_ident("crate") || path.leading_colon.is_some() {
                quote!(#vis)
            } else if path.segments.first().is_some_and(|s| s.ident == "crate") {
                quote!(pub(in #path))
            } else if path.is_ident("self") {
                quote!(pub(super))
            } else {
                // `super`, `super::super`, `in super::…`: one level further up.
                quote!(pub(in super::#path))
            }
        }
    }
}

/// A path for an intra-doc link written inside the tool type's hidden module.
pub(crate) fn doc_path(path: &str) -> String {
    if let Some(absolute) = path.strip_prefix("::") {
        // Intra-doc links name other crates without the leading `::`.
        absolute.to_owned()
    } else if path.starts_with("crate::") || path == "crate" {
        path.to_owned()
    } else if let Some(rest) = path.strip_prefix("self::") {
        format!("super::{rest}")
    } else {
        format!("super::{path}")
    }
}

/// The function as the user names it, shown and as a path for intra-doc links (raw identifiers
/// kept): `get_weather`, or `Library::search` for a method (the block's type without its generic
/// arguments, which links do not take).
pub(crate) fn rust_name(tool: &Item) -> (String, String) {
    let fn_ident = &tool.func.sig.ident;
    let Some(method) = &tool.method else {
        return (unraw(fn_ident), fn_ident.to_string());
    };
    let owner: Vec<&Ident> = match &method.self_ty {
        Type::Path(path) if path.qself.is_none() => {
            path.path.segments.iter().map(|s| &s.ident).collect()
        }
        _ => vec![&method.self_ident],
    };
    let shown: Vec<String> = owner.iter().map(|ident| unraw(ident)).collect();
    let linked: Vec<String> = owner.iter().map(ToString::to_string).collect();
    (
        format!("{}::{}", shown.join("::"), unraw(fn_ident)),
        format!("{}::{fn_ident}", linked.join("::")),
    )
}

/// The argument of the `#[tool(…)]` (`#[prompt(…)]`, `#[resource(…)]`) that `#[tools]` puts
/// back on a method it has expanded: the macro then gives the method back as it is.
pub const EXPANDED_BY_TOOLS: &str = "__tooldef_expanded_by_tools";

/// Whether a `#[tool(…)]` (`#[prompt(…)]`, `#[resource(…)]`) is one that `#[tools]` put back.
pub fn expanded_by_tools(args: &TokenStream) -> bool {
    syn::parse2::<Ident>(args.clone()).is_ok_and(|ident| ident == EXPANDED_BY_TOOLS)
}

/// A method of a `#[tools]` block, put back into the block, its attribute marked as done.
fn method_item(tool: &Item) -> ImplItemFn {
    let func = tool.func.clone();
    let mut attrs = func.attrs;
    if let Some(method) = &tool.method {
        let path = &method.attribute;
        let done = Ident::new(EXPANDED_BY_TOOLS, Span::call_site());
        attrs.insert(0, syn::parse_quote!(#[#path(#done)]));
    }
    ImplItemFn {
        attrs,
        vis: func.vis,
        defaultness: tool.method.as_ref().and_then(|method| method.defaultness),
        sig: func.sig,
        block: *func.block,
    }
}

/// The method `#[tools]` adds to the block: `toolset(self: Arc<Self>) -> ToolSetBuilder`, with
/// one tool (prompt, resource) per `#[tool]` (`#[prompt]`, `#[resource]`) method, each holding a
/// clone of the `Arc`. It is `pub` whatever the methods' visibility: serving the value is what
/// the block is for, usually from another module.
fn toolset_method(krate: &TokenStream, items: &[&Item], paths: &[TokenStream]) -> ImplItem {
    let listed = |kind: Kind| {
        let names: Vec<String> = items
            .iter()
            .filter(|item| item.kind == kind)
            .map(|item| match (&item.kind, &item.attrs.uri) {
                (Kind::Resource, Some(uri)) => format!("`{}`", uri.value),
                _ => format!("`{}`", item.wire_name()),
            })
            .collect();
        let noun = match (kind, names.len()) {
            (_, 0) => return None,
            (Kind::Tool, 1) => "the tool",
            (Kind::Tool, _) => "the tools",
            (Kind::Prompt, 1) => "the prompt",
            (Kind::Prompt, _) => "the prompts",
            (Kind::Resource, 1) => "the resource",
            (Kind::Resource, _) => "the resources",
        };
        Some(format!("{noun} {}", names.join(", ")))
    };
    let listed: Vec<String> = Kind::ALL.into_iter().filter_map(listed).collect();
    let doc = format!(
        "What this `impl` block serves ({}), each calling its method on this value: a \
         `ToolSetBuilder` to which other tools, prompts, resources, state, limits and timeouts \
         can still be added before `build()`. Generated by `#[tools]`.",
        listed.join("; ")
    );
    let method = Ident::new(TOOLSET_METHOD, Span::call_site());
    let adds = items.iter().zip(paths).map(|(item, path)| {
        let add = Ident::new(item.kind.name(), Span::call_site());
        quote!(.#add(#path(::std::sync::Arc::clone(&self))))
    });
    syn::parse_quote! {
        #[doc = #doc]
        pub fn #method(self: ::std::sync::Arc<Self>) -> #krate::ToolSetBuilder {
            #krate::ToolSet::builder()
                #(#adds)*
        }
    }
}

/// The block with its methods back in place and the `toolset` method added, then each tool's
/// (prompt's, resource's) items.
fn expand_impl(block: &ToolImpl) -> TokenStream {
    let mut item = block.item.clone();
    let mut items = Vec::new();
    let mut paths = Vec::new();
    for (index, method) in &block.items {
        item.items[*index] = ImplItem::Fn(method_item(method));
        let (tokens, path) = item_tokens(method);
        items.push(tokens);
        paths.push(path);
    }
    let krate = crate_path(block.attrs.crate_path.as_ref());
    let methods: Vec<&Item> = block.items.iter().map(|(_, method)| method).collect();
    item.items.push(toolset_method(&krate, &methods, &paths));
    quote! {
        #item

        #(#items)*
    }
}

/// A function and its tool's (prompt's, resource's) items.
fn expand(item: &Item) -> TokenStream {
    let func = &item.func;
    let (items, _) = item_tokens(item);
    quote! {
        #func

        #items
    }
}

/// Everything generated for one item beside its function (or method), and the path of its type.
fn item_tokens(item: &Item) -> (TokenStream, TokenStream) {
    match item.kind {
        Kind::Tool => tool_items(item),
        Kind::Prompt => crate::strings::prompt_items(item),
        Kind::Resource => crate::strings::resource_items(item),
    }
}

/// Everything generated for one tool beside its function (or method), and the path of the
/// tool's type.
fn tool_items(tool: &Item) -> (TokenStream, TokenStream) {
    let krate = tool_krate(tool);
    let func = &tool.func;
    let fn_ident = &func.sig.ident;
    let tool_ident = tool.type_ident();

    let (args_ty, args_item) = match whole_struct(tool) {
        Some(inner) => (quote!(#inner), TokenStream::new()),
        None => {
            let args_ident = format_ident!("{}Args", tool_ident);
            (quote!(#args_ident), args_struct(tool, &krate, &args_ident))
        }
    };
    let mut extractions = Vec::new();
    let mut call_args = Vec::new();
    for (index, param) in tool.params.iter().enumerate() {
        match &param.kind {
            ParamKind::Field(ident) => call_args.push(quote!(args.#ident)),
            ParamKind::WholeStruct(_) => call_args.push(quote!(#krate::Args(args))),
            ParamKind::Context => {
                let ty = &param.ty;
                let value = format_ident!("__tooldef_context_{index}");
                extractions.push(quote_spanned! {ty.span()=>
                    let #value = <#ty as #krate::FromCallContext>::from_call_context(&context)?;
                });
                call_args.push(quote!(#value));
            }
            // Validation refused them; nothing is expanded.
            ParamKind::Unsupported | ParamKind::ResourceUri => {}
        }
    }
    let needed_state = needed_state_method(&tool.params, &krate);
    let checks = checks(tool, &krate);
    let output_conversion = output_conversion(&tool.output, &krate);
    let output_ty = match &tool.output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, ty) => quote!(#ty),
    };
    let call = call_expr(tool, call_args);
    let output_schema = if tool.attrs.no_output_schema {
        quote!(|| ::std::option::Option::None)
    } else {
        quote! {
            || {
                #[allow(unused_imports)]
                use #krate::__private::output::{NoOutputSchema as _, PlainOutputSchema as _, ResultOutputSchema as _};
                (&&&#krate::__private::output::Probe::<#output_ty>::new()).output_schema()
            }
        }
    };

    let name = tool.wire_name();
    let description = match (&tool.attrs.description, &tool.docs.description) {
        (Some(given), _) => given.value.clone(),
        (None, Some(doc)) => doc.clone(),
        (None, None) => String::new(),
    };
    let title = match tool.attrs.title.as_ref() {
        Some(t) => {
            let t = &t.value;
            quote!(::std::option::Option::Some(#t))
        }
        None => quote!(::std::option::Option::None),
    };
    let read_only = option_bool(tool.attrs.read_only);
    let destructive = option_bool(tool.attrs.destructive);
    let idempotent = option_bool(tool.attrs.idempotent);
    let open_world = option_bool(tool.attrs.open_world);
    let strict = tool.attrs.strict.as_ref().is_none_or(|s| s.value);
    let icons = option_str(crate::mcp_attrs::icons_json(&tool.attrs.icons));
    let meta = option_str(crate::mcp_attrs::meta_json(tool));
    let task = tool.attrs.task.unwrap_or(false);
    let examples = crate::examples::definition_field(tool, &krate);
    let defer_loading = tool.attrs.defer_loading.unwrap_or(false);

    let (shown, linked) = rust_name(tool);
    let link = doc_path(&linked);
    let krate_doc = doc_path(&krate.to_string().replace(' ', ""));
    let tool_doc = match &tool.method {
        None => format!(
            "The [`{shown}`]({link}) tool, named `{name}` on the wire: implements \
             [`Tool`]({krate_doc}::Tool)."
        ),
        Some(method) => format!(
            "The [`{shown}`]({link}) method as a tool, named `{name}` on the wire: implements \
             [`Tool`]({krate_doc}::Tool) by calling the method on the value it holds. \
             `{}::{TOOLSET_METHOD}` gives every tool of the method's block.",
            method.self_ident
        ),
    };
    let (tool_type, tool_path) = tool_type(&ToolType {
        kind: Kind::Tool,
        ident: &tool_ident,
        vis: &func.vis,
        module: match &tool.method {
            None => free_module(Kind::Tool, fn_ident),
            Some(_) => method_module(&tool_ident),
        },
        krate: &krate,
        doc: Some(&tool_doc),
        holds: tool.method.as_ref().map(|method| &method.self_ty),
    });

    let items = quote! {
        #args_item

        #checks

        #tool_type

        impl #krate::Tool for #tool_path {
            type Args = #args_ty;
            type Output = #output_ty;

            const NAME: &'static str = #name;

            fn type_name(&self) -> &'static str {
                ::core::concat!(::core::module_path!(), "::", ::core::stringify!(#tool_ident))
            }

            #needed_state

            fn definition(&self) -> &'static #krate::ToolDefinition {
                static DEFINITION: ::std::sync::OnceLock<#krate::ToolDefinition> =
                    ::std::sync::OnceLock::new();
                #krate::__private::definition(
                    &DEFINITION,
                    &#krate::__private::DefinitionParts {
                        name: #name,
                        title: #title,
                        description: #description,
                        read_only: #read_only,
                        destructive: #destructive,
                        idempotent: #idempotent,
                        open_world: #open_world,
                        strict: #strict,
                        icons: #icons,
                        meta: #meta,
                        task: #task,
                        examples: #examples,
                        defer_loading: #defer_loading,
                    },
                    #krate::__private::input_schema::<#args_ty>,
                    #output_schema,
                )
            }

            fn output(
                output: Self::Output,
            ) -> ::std::result::Result<#krate::ReturnValue, ::std::string::String> {
                #output_conversion
            }

            fn call(
                &self,
                args: Self::Args,
                context: #krate::CallContext,
            ) -> impl ::std::future::Future<
                Output = ::std::result::Result<Self::Output, #krate::ContextError>,
            > + ::std::marker::Send {
                async move {
                    #(#extractions)*
                    let _ = &context;
                    ::std::result::Result::Ok(#call)
                }
            }
        }
    };
    (items, tool_path)
}

/// The call of the function (`.await`ed if it is `async`) with `args`: the one difference a
/// method makes is its path, and the value it is called on.
pub(crate) fn call_expr(item: &Item, args: Vec<TokenStream>) -> TokenStream {
    let fn_ident = &item.func.sig.ident;
    let (callee, receiver) = match &item.method {
        None => (quote!(#fn_ident), None),
        Some(method) => {
            let self_ty = &method.self_ty;
            let receiver = match &method.receiver {
                ReceiverKind::Shared => Some(quote!(&*self.0)),
                ReceiverKind::Arc => Some(quote!(::std::sync::Arc::clone(&self.0))),
                // Validation refused any other receiver; nothing is expanded.
                ReceiverKind::None | ReceiverKind::Refused(_) => None,
            };
            (quote!(<#self_ty>::#fn_ident), receiver)
        }
    };
    let args = receiver.into_iter().chain(args);
    if item.func.sig.asyncness.is_some() {
        quote!(#callee(#(#args),*).await)
    } else {
        quote!(#callee(#(#args),*))
    }
}

fn whole_struct(tool: &Item) -> Option<&Type> {
    tool.params.iter().find_map(|p| match &p.kind {
        ParamKind::WholeStruct(inner) => Some(inner),
        _ => None,
    })
}

/// The struct the model's arguments deserialise into: one field per parameter, in order, carrying
/// the parameter's docs, rename, default and forwarded schemars/serde attributes.
fn args_struct(tool: &Item, krate: &TokenStream, args_ident: &Ident) -> TokenStream {
    let vis = &tool.func.vis;
    let (shown, linked) = rust_name(tool);
    let serde_crate = format!("{}::__private::serde", krate.to_string().replace(' ', ""));
    let schemars_crate = format!(
        "{}::__private::schemars",
        krate.to_string().replace(' ', "")
    );
    let doc = format!("The arguments of the [`{shown}`]({linked}) tool, as the model sends them.");

    let mut fields = Vec::new();
    let mut default_fns = Vec::new();
    for param in &tool.params {
        let ParamKind::Field(ident) = &param.kind else {
            continue;
        };
        let ty = &param.ty;
        let description = param_description(tool, param);
        let deprecated = param.arg.deprecated.as_ref().map(|d| &d.value);
        let description = match deprecated {
            Some(Some(note)) => Some(with_deprecation_note(description.as_deref(), note)),
            _ => description,
        };
        let doc_attr = description.map(|d| quote!(#[doc = #d]));
        // JSON Schema's own keyword; targets without it say "Deprecated." in the description.
        let deprecated_attr = deprecated.map(|_| quote!(#[schemars(extend("deprecated" = true))]));
        // MCP's keyword (SEP-2243); the other targets' renderings drop it and say so.
        let header_attr = param.arg.header.as_ref().map(|header| {
            let header = &header.value;
            quote!(#[schemars(extend("x-mcp-header" = #header))])
        });
        let rename = param.arg.rename.as_ref().map(|r| {
            let r = &r.value;
            quote!(#[serde(rename = #r)])
        });
        let default = param
            .arg
            .default
            .as_ref()
            .map(|default| match &default.value {
                None => quote!(#[serde(default)]),
                Some(expr) => {
                    let default_fn = format_ident!("__tooldef_default_{}", unraw(ident));
                    default_fns.push(quote! {
                        #[doc(hidden)]
                        fn #default_fn() -> #ty {
                            #expr
                        }
                    });
                    let path = format!("{args_ident}::{default_fn}");
                    quote!(#[serde(default = #path)])
                }
            });
        let forwarded = &param.forwarded;
        fields.push(quote! {
            #doc_attr
            #rename
            #default
            #deprecated_attr
            #header_attr
            #(#forwarded)*
            pub #ident: #ty
        });
    }

    let default_impl = (!default_fns.is_empty()).then(|| {
        quote! {
            impl #args_ident {
                #(#default_fns)*
            }
        }
    });
    // serde's derive only where a forwarded `#[serde(…)]` asks for what it alone reads
    // (`with`, `alias`, `flatten`…); otherwise the lean reading (see `deserialize_impl`), whose
    // attributes above stay for schemars to read.
    let serde_attributes = tool
        .params
        .iter()
        .filter(|param| matches!(param.kind, ParamKind::Field(_)))
        .any(|param| param.forwarded.iter().any(|a| a.path().is_ident("serde")));
    let (serde_derive, deserialize_impl) = if serde_attributes {
        (
            quote!(#krate::__private::serde::Deserialize,),
            TokenStream::new(),
        )
    } else {
        (
            TokenStream::new(),
            deserialize_impl(tool, krate, args_ident),
        )
    };
    quote! {
        #[doc = #doc]
        #[derive(#serde_derive #krate::__private::schemars::JsonSchema)]
        #[serde(crate = #serde_crate, deny_unknown_fields)]
        #[schemars(crate = #schemars_crate, transform = #krate::__private::remove_root_description)]
        #[allow(missing_docs)]
        #vis struct #args_ident {
            #(#fields,)*
        }

        #default_impl

        #deserialize_impl
    }
}

/// `Deserialize` for the argument struct of a tool whose parameters carry no `#[serde(…)]`: the
/// struct's own part of what serde's derive writes (a slot per field, a default or "missing
/// field" for each one not given), the rest being `__private::fields`, written once. It reads
/// and refuses what the derive does, with the same errors, in a quarter of the code.
fn deserialize_impl(tool: &Item, krate: &TokenStream, args_ident: &Ident) -> TokenStream {
    let serde = quote!(#krate::__private::serde);
    let fields_mod = quote!(#krate::__private::fields);
    let mut names = Vec::new();
    let mut slots = Vec::new();
    let mut arms = Vec::new();
    let mut values = Vec::new();
    let params = tool
        .params
        .iter()
        .filter_map(|param| match &param.kind {
            ParamKind::Field(ident) => Some((param, ident)),
            _ => None,
        })
        .collect::<Vec<_>>();
    for (index, (param, ident)) in params.iter().enumerate() {
        let Some((name, _)) = param.wire_name() else {
            continue;
        };
        let ty = &param.ty;
        let slot = format_ident!("__field{index}");
        slots
            .push(quote!(let mut #slot: ::std::option::Option<#ty> = ::std::option::Option::None;));
        let read = quote!(#fields_mod::read(&mut __map, &mut #slot, #name)?);
        arms.push(if index + 1 == params.len() {
            quote!(_ => #read,)
        } else {
            quote!(#index => #read,)
        });
        let absent = match param.arg.default.as_ref().map(|default| &default.value) {
            None => quote!(#fields_mod::missing(#name)?),
            Some(None) => quote!(::std::default::Default::default()),
            Some(Some(_)) => {
                let default_fn = format_ident!("__tooldef_default_{}", unraw(ident));
                quote!(#args_ident::#default_fn())
            }
        };
        values.push(quote! {
            #ident: match #slot {
                ::std::option::Option::Some(value) => value,
                ::std::option::Option::None => #absent,
            }
        });
        names.push(name);
    }
    if arms.is_empty() {
        // No field: every key is refused before a match could run.
        arms.push(quote!(_ => {}));
    }
    let expecting = format!("struct {args_ident}");
    let struct_name = args_ident.to_string();
    quote! {
        impl<'de> #serde::Deserialize<'de> for #args_ident {
            fn deserialize<__D: #serde::Deserializer<'de>>(
                __deserializer: __D,
            ) -> ::std::result::Result<Self, __D::Error> {
                const FIELDS: &[&str] = &[#(#names),*];
                struct __Visitor;
                impl<'de> #serde::de::Visitor<'de> for __Visitor {
                    type Value = #args_ident;

                    fn expecting(
                        &self,
                        formatter: &mut ::std::fmt::Formatter,
                    ) -> ::std::fmt::Result {
                        formatter.write_str(#expecting)
                    }

                    fn visit_map<__A: #serde::de::MapAccess<'de>>(
                        self,
                        mut __map: __A,
                    ) -> ::std::result::Result<#args_ident, __A::Error> {
                        #(#slots)*
                        while let ::std::option::Option::Some(__index) =
                            #fields_mod::next(&mut __map, FIELDS)?
                        {
                            match __index {
                                #(#arms)*
                            }
                        }
                        ::std::result::Result::Ok(#args_ident { #(#values,)* })
                    }
                }
                #serde::Deserializer::deserialize_struct(__deserializer, #struct_name, FIELDS, __Visitor)
            }
        }
    }
}

/// `Tool::output`: the return value into a tool result, the `Err` of a `Result` into the tool's
/// error message. The conversions are bounded by `IntoReturnValue` and `ToolErrorDisplay`, whose
/// messages say what a tool may return, and spanned at the types, so this code is also the check
/// of the return type.
fn output_conversion(output: &ReturnType, krate: &TokenStream) -> TokenStream {
    let private = quote!(#krate::__private);
    let ReturnType::Type(_, ty) = output else {
        return quote!(#krate::IntoReturnValue::into_return_value(output));
    };
    match result_parts(ty) {
        Some((ok, err)) => {
            let into_value = quote_spanned! {ok.span()=>
                #krate::IntoReturnValue::into_return_value(value)
            };
            let err_span = err.map_or_else(|| ty.span(), |e| e.span());
            let message = quote_spanned! {err_span=> #private::error_message(&error) };
            quote! {
                match output {
                    ::std::result::Result::Ok(value) => #into_value,
                    ::std::result::Result::Err(error) => ::std::result::Result::Err(#message),
                }
            }
        }
        None => quote_spanned! {ty.span()=>
            #krate::IntoReturnValue::into_return_value(output)
        },
    }
}

/// The checks that need types, as trait bounds whose `#[diagnostic::on_unimplemented]` messages
/// say what is wrong and how to fix it, each spanned at the type it is about: arguments must be
/// portable (unless `strict = false`), as types in the signature of a function that is never
/// called (see `families`), defaults must serialise, and an argument mirrored into an HTTP
/// header (`#[arg(header)]`) must be a string, an integer or a boolean. (The return type is
/// checked by the conversion in `Tool::output`.)
fn checks(tool: &Item, krate: &TokenStream) -> TokenStream {
    let strict = tool.attrs.strict.as_ref().is_none_or(|s| s.value);
    let private = quote!(#krate::__private);
    let mut portable = Vec::new();
    let mut asserted = Vec::new();
    for param in &tool.params {
        let argument_ty = match &param.kind {
            ParamKind::Field(_) => &param.ty,
            ParamKind::WholeStruct(inner) => inner,
            ParamKind::Context | ParamKind::ResourceUri | ParamKind::Unsupported => continue,
        };
        if strict {
            portable.extend(crate::families::portability_checks(argument_ty, &private));
        }
        if param.arg.default.is_some() {
            asserted.push(quote_spanned! {argument_ty.span()=>
                #private::assert_default_shown::<#argument_ty>();
            });
        }
        // An `Option` is refused by validation, with its own reason.
        let header_field = matches!(param.kind, ParamKind::Field(_))
            && param.arg.header.is_some()
            && valid::option_inner(argument_ty).is_none();
        if header_field {
            asserted.push(quote_spanned! {argument_ty.span()=>
                #private::assert_header_argument::<#argument_ty>();
            });
        }
    }
    quote! {
        const _: () = {
            #[allow(dead_code, clippy::all)]
            fn __tooldef_checks(#(_: #portable),*) {
                #(#asserted)*
            }
        };
    }
}

/// `Result<T, E>` → `(T, Some(E))`; a one-parameter alias such as `io::Result<T>` or
/// `AppResult<T>` → `(T, None)`. A return type whose name ends in `Result` is taken to be a
/// `std::result::Result` (the check `assert_result_error` confirms it), because a macro sees
/// names, not types, and such aliases are how Rust code spells fallible returns.
pub(crate) fn result_parts(ty: &Type) -> Option<(&Type, Option<&Type>)> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if !last.ident.to_string().ends_with("Result") {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let types: Vec<&Type> = args
        .args
        .iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect();
    match types.as_slice() {
        [ok] => Some((ok, None)),
        [ok, err] => Some((ok, Some(err))),
        _ => None,
    }
}

/// `#[arg(description)]`, else the `///` doc, else the `# Arguments` entry.
pub(crate) fn param_description(tool: &Item, param: &Param) -> Option<String> {
    if let Some(d) = &param.arg.description {
        return Some(d.value.clone());
    }
    if let Some(d) = &param.doc {
        return Some(d.clone());
    }
    let ParamKind::Field(ident) = &param.kind else {
        return None;
    };
    let name = unraw(ident);
    tool.docs
        .arguments
        .iter()
        .find(|a| a.name == name)
        .map(|a| a.description.clone())
}

/// The description with `#[arg(deprecated = "…")]`'s note after it: "The page size. Deprecated.
/// Use `limit` instead." The sentence "Deprecated." is the one the runtime writes for targets
/// that drop the keyword, so it is not said twice there.
fn with_deprecation_note(description: Option<&str>, note: &str) -> String {
    let note = note.trim();
    let mut chars = note.chars();
    let note = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
        None => String::new(),
    };
    let ends_sentence = |s: &str| s.ends_with(['.', '!', '?']);
    let mut said = String::from("Deprecated.");
    if !note.is_empty() {
        said.push(' ');
        said.push_str(&note);
        if !ends_sentence(&note) {
            said.push('.');
        }
    }
    match description.map(str::trim).filter(|d| !d.is_empty()) {
        None => said,
        Some(d) if ends_sentence(d) => format!("{d} {said}"),
        Some(d) => format!("{d}. {said}"),
    }
}

pub(crate) fn option_str(value: Option<String>) -> TokenStream {
    match value {
        Some(s) => quote!(::std::option::Option::Some(#s)),
        None => quote!(::std::option::Option::None),
    }
}

fn option_bool(value: Option<bool>) -> TokenStream {
    match value {
        Some(b) => quote!(::std::option::Option::Some(#b)),
        None => quote!(::std::option::Option::None),
    }
}

#[cfg(test)]
mod tests {
    use super::with_deprecation_note;

    #[test]
    fn deprecation_notes_follow_the_description() {
        assert_eq!(
            with_deprecation_note(Some("Results per page."), "use `limit` instead"),
            "Results per page. Deprecated. Use `limit` instead."
        );
        assert_eq!(
            with_deprecation_note(Some("Results per page"), "Gone in 2.0!"),
            "Results per page. Deprecated. Gone in 2.0!"
        );
        assert_eq!(
            with_deprecation_note(None, "`limit` replaces it"),
            "Deprecated. `limit` replaces it."
        );
    }
}
