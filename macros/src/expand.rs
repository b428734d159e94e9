//! Code generation: the argument struct, the tool type and its `Tool` implementation.

use heck::ToUpperCamelCase;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ReturnType, Type};

use crate::ast::{Param, ParamKind, Tool, unraw};
use crate::ctxt::Ctxt;
use crate::valid;

/// Parses, validates and expands one `#[tool]`.
pub fn tool(args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
    let cx = Ctxt::default();
    let tool = Tool::from_tokens(&cx, args, input);
    if let Some(tool) = &tool {
        valid::check(&cx, tool);
    }
    cx.check()?;
    match tool {
        Some(tool) => Ok(expand(&tool)),
        None => Err(syn::Error::new(
            Span::call_site(),
            "#[tool] could not parse its input",
        )),
    }
}

/// What to emit beside errors: the function (minus the attributes only the macro reads) and a
/// stand-in tool type implementing `Tool`, so that code using the tool still resolves. It never
/// runs: the errors stop compilation.
pub fn fallback(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = crate::ast::strip_param_attributes(input.clone());
    let Ok(func) = syn::parse2::<syn::ItemFn>(input) else {
        return item;
    };
    // A method sits in an `impl` block, where a struct or an `impl` cannot: the method alone,
    // so that our error is the only one.
    if func.sig.receiver().is_some() {
        return item;
    }
    let attrs = crate::attr::ToolAttrs::parse(&Ctxt::default(), args);
    let krate = crate_path(&attrs);
    let tool_ident = tool_ident(&attrs, &func.sig.ident);
    let name = unraw(&func.sig.ident);
    let (tool_type, tool_path) = tool_type(&func, &tool_ident, &krate, None);
    quote! {
        #item

        #tool_type

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
    }
}

fn crate_path(attrs: &crate::attr::ToolAttrs) -> TokenStream {
    match &attrs.crate_path {
        Some(path) => quote!(#path),
        None => quote!(::tooldef),
    }
}

/// The tool's unit struct, and the path to it for the generated impls.
///
/// The struct is defined in a hidden module named after the function and brought into the
/// function's module by a glob import, which another item of that name (a user's `struct Stats`
/// beside `#[tool] fn stats`) shadows without an error of rustc's: the derives and impls still
/// apply to the tool's struct, through its path, and a check beside them reports the clash with
/// what to do (name the tool's type otherwise with `#[tool(type_name = "…")]`) as the only error.
fn tool_type(
    func: &syn::ItemFn,
    tool_ident: &Ident,
    krate: &TokenStream,
    doc: Option<&str>,
) -> (TokenStream, TokenStream) {
    let vis = &func.vis;
    let inner_vis = visibility_from_child(vis);
    let module = format_ident!("__tooldef_tool_{}", unraw(&func.sig.ident));
    let path = quote!(#module::#tool_ident);
    let doc = doc.map(|doc| quote!(#[doc = #doc]));
    let derives = doc
        .is_some()
        .then(|| quote!(#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]));
    let items = quote! {
        #[doc(hidden)]
        mod #module {
            #doc
            #derives
            #inner_vis struct #tool_ident;
        }

        #[allow(unused_imports)]
        #vis use #module::*;

        const _: () = #krate::__private::assert_tool_type::<#tool_ident, #path>();
    };
    (items, path)
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
fn doc_path(krate: &TokenStream) -> String {
    let krate = krate.to_string().replace(' ', "");
    if let Some(absolute) = krate.strip_prefix("::") {
        // Intra-doc links name other crates without the leading `::`.
        absolute.to_owned()
    } else if krate.starts_with("crate::") || krate == "crate" {
        krate
    } else {
        format!("super::{krate}")
    }
}

/// `get_weather` → `GetWeather`, unless `type_name` says otherwise.
fn tool_ident(attrs: &crate::attr::ToolAttrs, fn_ident: &Ident) -> Ident {
    match &attrs.type_name {
        Some(ident) => ident.clone(),
        None => format_ident!(
            "{}",
            unraw(fn_ident).to_upper_camel_case(),
            span = fn_ident.span()
        ),
    }
}

fn expand(tool: &Tool) -> TokenStream {
    let krate = crate_path(&tool.attrs);
    let func = &tool.func;
    let fn_ident = &func.sig.ident;
    let fn_name = unraw(fn_ident);
    let tool_ident = tool_ident(&tool.attrs, fn_ident);

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
            // Validation refused it; nothing is expanded.
            ParamKind::Unsupported => {}
        }
    }
    let checks = checks(tool, &krate);
    let output_conversion = output_conversion(&func.sig.output, &krate);
    let output_ty = match &func.sig.output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, ty) => quote!(#ty),
    };
    let call = if func.sig.asyncness.is_some() {
        quote!(#fn_ident(#(#call_args),*).await)
    } else {
        quote!(#fn_ident(#(#call_args),*))
    };

    let name = tool.wire_name();
    let description = match (&tool.attrs.description, &tool.docs.description) {
        (Some(given), _) => given.value.clone(),
        (None, Some(doc)) => doc.clone(),
        (None, None) => String::new(),
    };
    let title = tool.attrs.title.as_ref().map(|t| {
        let t = &t.value;
        quote!(.title(#t))
    });
    let read_only = option_bool(tool.attrs.read_only);
    let destructive = option_bool(tool.attrs.destructive);
    let idempotent = option_bool(tool.attrs.idempotent);
    let open_world = option_bool(tool.attrs.open_world);
    let strict = tool.attrs.strict.as_ref().is_none_or(|s| s.value);

    let tool_doc = format!(
        "The [`{fn_name}`](super::{fn_ident}) tool, named `{name}` on the wire: implements \
         [`Tool`]({}::Tool).",
        doc_path(&krate)
    );
    let (tool_type, tool_path) = tool_type(func, &tool_ident, &krate, Some(&tool_doc));

    quote! {
        #func

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

            fn definition(&self) -> &'static #krate::ToolDefinition {
                static DEFINITION: ::std::sync::OnceLock<#krate::ToolDefinition> =
                    ::std::sync::OnceLock::new();
                DEFINITION.get_or_init(|| {
                    #[allow(unused_imports)]
                    use #krate::__private::output::{NoOutputSchema as _, PlainOutputSchema as _, ResultOutputSchema as _};
                    #krate::ToolDefinition::builder(#name)
                        #title
                        .description(#description)
                        .input_schema(#krate::__private::input_schema::<#args_ty>())
                        .output_schema((&&&#krate::__private::output::Probe::<#output_ty>::new()).output_schema())
                        .annotations(#krate::ToolAnnotations {
                            read_only_hint: #read_only,
                            destructive_hint: #destructive,
                            idempotent_hint: #idempotent,
                            open_world_hint: #open_world,
                            ..::core::default::Default::default()
                        })
                        .strict(#strict)
                        .build()
                })
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
    }
}

fn whole_struct(tool: &Tool) -> Option<&Type> {
    tool.params.iter().find_map(|p| match &p.kind {
        ParamKind::WholeStruct(inner) => Some(inner),
        _ => None,
    })
}

/// The struct the model's arguments deserialise into: one field per parameter, in order, carrying
/// the parameter's docs, rename, default and forwarded schemars/serde attributes.
fn args_struct(tool: &Tool, krate: &TokenStream, args_ident: &Ident) -> TokenStream {
    let vis = &tool.func.vis;
    let fn_name = unraw(&tool.func.sig.ident);
    let serde_crate = format!("{}::__private::serde", krate.to_string().replace(' ', ""));
    let schemars_crate = format!(
        "{}::__private::schemars",
        krate.to_string().replace(' ', "")
    );
    let doc = format!("The arguments of the [`{fn_name}`] tool, as the model sends them.");

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
    quote! {
        #[doc = #doc]
        #[derive(#krate::__private::serde::Deserialize, #krate::__private::schemars::JsonSchema)]
        #[serde(crate = #serde_crate, deny_unknown_fields)]
        #[schemars(crate = #schemars_crate, transform = #krate::__private::remove_root_description)]
        #[allow(missing_docs)]
        #vis struct #args_ident {
            #(#fields,)*
        }

        #default_impl
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
/// called (see `families`), and defaults must serialise. (The return type is checked by the
/// conversion in `Tool::output`.)
fn checks(tool: &Tool, krate: &TokenStream) -> TokenStream {
    let strict = tool.attrs.strict.as_ref().is_none_or(|s| s.value);
    let private = quote!(#krate::__private);
    let mut portable = Vec::new();
    let mut defaults = Vec::new();
    for param in &tool.params {
        let argument_ty = match &param.kind {
            ParamKind::Field(_) => &param.ty,
            ParamKind::WholeStruct(inner) => inner,
            ParamKind::Context | ParamKind::Unsupported => continue,
        };
        if strict {
            portable.extend(crate::families::portability_checks(argument_ty, &private));
        }
        if param.arg.default.is_some() {
            defaults.push(quote_spanned! {argument_ty.span()=>
                #private::assert_default_shown::<#argument_ty>();
            });
        }
    }
    quote! {
        const _: () = {
            #[allow(dead_code, clippy::all)]
            fn __tooldef_checks(#(_: #portable),*) {
                #(#defaults)*
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
fn param_description(tool: &Tool, param: &Param) -> Option<String> {
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
