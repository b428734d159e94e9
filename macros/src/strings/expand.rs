//! The code of a `#[prompt]` (its type and `Prompt` impl) and of a `#[resource]` (its type and
//! `Resource` impl). Both read each parameter from its string through
//! `__private::required_argument` or `optional_argument`, named with the parameter's type and
//! spanned at it, so that a type that cannot be read from a string is an error at that type;
//! and both answer completions by calling the `#[arg(complete = …)]` functions through
//! `__private::complete`, spanned at the function named.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ReturnType, Type};

use crate::ast::{Item, Param, ParamKind};
use crate::expand::{
    TOOLSET_METHOD, ToolType, call_expr, doc_path, free_module, method_module, needed_state_method,
    option_str, param_description, rust_name, tool_krate, tool_type,
};
use crate::families::{first_and_last_span, respan};
use crate::valid::option_inner;

/// A prompt's type and its `Prompt` impl, and the type's path.
pub fn prompt_items(item: &Item) -> (TokenStream, TokenStream) {
    let krate = tool_krate(item);
    let private = quote!(#krate::__private);
    let name = item.wire_name();
    let arguments: Vec<TokenStream> = item
        .params
        .iter()
        .filter_map(|param| {
            let (argument, _) = param.wire_name()?;
            let description = option_str(param_description(item, param));
            let required = option_inner(&param.ty).is_none() && param.arg.default.is_none();
            Some(quote! {
                #private::PromptArgumentParts {
                    name: #argument,
                    description: #description,
                    required: #required,
                }
            })
        })
        .collect();
    let known = argument_names(item);
    let common = Common::of(item);
    let Common {
        title,
        description,
        icons,
        meta,
    } = &common;
    let body = Body::of(
        item,
        &krate,
        |source| {
            quote! {
                #krate::PromptError::Argument {
                    prompt: ::std::borrow::ToOwned::to_owned(#name),
                    source: #source,
                }
            }
        },
        |error| quote!(#krate::PromptError::unavailable(#krate::Prompt::definition(self), &#error)),
    );
    let Body { reads, call } = &body;
    let needed_state = needed_state_method(&item.params, &krate);
    let reply = output_conversion(
        item,
        |span| quote_spanned!(span=> #krate::IntoPromptReply::into_prompt_reply(__tooldef_output)),
    );
    let complete = completion(item, &krate);
    let (shown, link) = rust_name(item);
    let link = doc_path(&link);
    let krate_doc = doc_path(&krate.to_string().replace(' ', ""));
    let doc = match &item.method {
        None => format!(
            "The [`{shown}`]({link}) prompt, named `{name}`: implements \
             [`Prompt`]({krate_doc}::Prompt)."
        ),
        Some(method) => format!(
            "The [`{shown}`]({link}) method as a prompt, named `{name}`: implements \
             [`Prompt`]({krate_doc}::Prompt) by calling the method on the value it holds. \
             `{}::{TOOLSET_METHOD}` gives every tool, prompt and resource of the method's block.",
            method.self_ident
        ),
    };
    let (ident, type_items, path) = item_type(item, &krate, &doc);
    let tokens = quote! {
        #type_items

        impl #krate::Prompt for #path {
            fn definition(&self) -> &'static #krate::PromptDefinition {
                static DEFINITION: ::std::sync::OnceLock<#krate::PromptDefinition> =
                    ::std::sync::OnceLock::new();
                #private::prompt_definition(
                    &DEFINITION,
                    &#private::PromptParts {
                        name: #name,
                        title: #title,
                        description: #description,
                        arguments: &[#(#arguments),*],
                        icons: #icons,
                        meta: #meta,
                    },
                )
            }

            fn type_name(&self) -> &'static str {
                ::core::concat!(::core::module_path!(), "::", ::core::stringify!(#ident))
            }

            #needed_state

            fn get(
                &self,
                __tooldef_arguments: #krate::StringArgs,
                __tooldef_context: #krate::CallContext,
            ) -> impl ::std::future::Future<
                Output = ::std::result::Result<#krate::PromptReply, #krate::PromptError>,
            > + ::std::marker::Send {
                async move {
                    #[allow(unused_mut)]
                    let mut __tooldef_arguments = __tooldef_arguments;
                    if let ::std::result::Result::Err(source) =
                        #private::no_other_arguments(&__tooldef_arguments, &[#(#known),*])
                    {
                        return ::std::result::Result::Err(#krate::PromptError::Argument {
                            prompt: ::std::borrow::ToOwned::to_owned(#name),
                            source,
                        });
                    }
                    #(#reads)*
                    let _ = &__tooldef_context;
                    let __tooldef_output = #call;
                    #reply.map_err(|message| #krate::PromptError::Failed {
                        prompt: ::std::borrow::ToOwned::to_owned(#name),
                        message,
                    })
                }
            }

            #complete
        }
    };
    (tokens, path)
}

/// A resource's type and its `Resource` impl, and the type's path.
pub fn resource_items(item: &Item) -> (TokenStream, TokenStream) {
    let krate = tool_krate(item);
    let private = quote!(#krate::__private);
    let name = item.wire_name();
    // Validation stops at a resource without a URI; nothing is expanded for it.
    let uri = item
        .attrs
        .uri
        .as_ref()
        .map(|uri| uri.value.clone())
        .unwrap_or_default();
    let template = uri.contains(['{', '}']);
    let mime_type = option_str(item.attrs.mime_type.as_ref().map(|m| m.value.clone()));
    let size = match &item.attrs.size {
        Some(size) => {
            let size = size.value;
            quote!(::std::option::Option::Some(#size))
        }
        None => quote!(::std::option::Option::None),
    };
    let annotations = option_str(crate::mcp_attrs::annotations_json(
        item.attrs.annotations.as_ref(),
    ));
    let common = Common::of(item);
    let Common {
        title,
        description,
        icons,
        meta,
    } = &common;
    let body = Body::of(
        item,
        &krate,
        |source| {
            quote! {
                #krate::ResourceError::Variable {
                    uri: ::std::borrow::ToOwned::to_owned(__tooldef_uri),
                    source: #source,
                }
            }
        },
        |error| quote!(#krate::ResourceError::unavailable(__tooldef_uri, &#error)),
    );
    let Body { reads, call } = &body;
    let needed_state = needed_state_method(&item.params, &krate);
    let contents = output_conversion(item, |span| {
        quote_spanned! {span=>
            #krate::IntoResourceContents::into_contents(__tooldef_output, __tooldef_uri, #mime_type)
        }
    });
    let complete = completion(item, &krate);
    let (shown, link) = rust_name(item);
    let link = doc_path(&link);
    let krate_doc = doc_path(&krate.to_string().replace(' ', ""));
    let at = if template {
        format!("at every URI of the template `{uri}`")
    } else {
        format!("at `{uri}`")
    };
    let doc = match &item.method {
        None => format!(
            "The [`{shown}`]({link}) resource, {at}: implements \
             [`Resource`]({krate_doc}::Resource)."
        ),
        Some(method) => format!(
            "The [`{shown}`]({link}) method as a resource, {at}: implements \
             [`Resource`]({krate_doc}::Resource) by calling the method on the value it holds. \
             `{}::{TOOLSET_METHOD}` gives every tool, prompt and resource of the method's block.",
            method.self_ident
        ),
    };
    let (ident, type_items, path) = item_type(item, &krate, &doc);
    let tokens = quote! {
        #type_items

        impl #krate::Resource for #path {
            fn definition(&self) -> &'static #krate::ResourceDefinition {
                static DEFINITION: ::std::sync::OnceLock<#krate::ResourceDefinition> =
                    ::std::sync::OnceLock::new();
                #private::resource_definition(
                    &DEFINITION,
                    &#private::ResourceParts {
                        uri: #uri,
                        template: #template,
                        name: #name,
                        title: #title,
                        description: #description,
                        mime_type: #mime_type,
                        size: #size,
                        annotations: #annotations,
                        icons: #icons,
                        meta: #meta,
                    },
                )
            }

            fn type_name(&self) -> &'static str {
                ::core::concat!(::core::module_path!(), "::", ::core::stringify!(#ident))
            }

            #needed_state

            fn read(
                &self,
                __tooldef_uri: &str,
                __tooldef_arguments: #krate::StringArgs,
                __tooldef_context: #krate::CallContext,
            ) -> impl ::std::future::Future<
                Output = ::std::result::Result<
                    ::std::vec::Vec<#krate::ResourceContents>,
                    #krate::ResourceError,
                >,
            > + ::std::marker::Send {
                async move {
                    #[allow(unused_mut, unused_variables)]
                    let mut __tooldef_arguments = __tooldef_arguments;
                    #(#reads)*
                    let _ = &__tooldef_context;
                    let __tooldef_output = #call;
                    #contents.map_err(|message| #krate::ResourceError::Failed {
                        uri: ::std::borrow::ToOwned::to_owned(__tooldef_uri),
                        message,
                    })
                }
            }

            #complete
        }
    };
    (tokens, path)
}

/// What a prompt's and a resource's definitions both hold, as tokens of `Option<&str>`.
struct Common {
    title: TokenStream,
    description: TokenStream,
    icons: TokenStream,
    meta: TokenStream,
}

impl Common {
    fn of(item: &Item) -> Common {
        // Optional, as MCP's is: a prompt or a resource without a doc comment has none.
        let description = match (&item.attrs.description, &item.docs.description) {
            (Some(given), _) => Some(given.value.clone()),
            (None, doc) => doc.clone(),
        };
        Common {
            title: option_str(item.attrs.title.as_ref().map(|t| t.value.clone())),
            description: option_str(description),
            icons: option_str(crate::mcp_attrs::icons_json(&item.attrs.icons)),
            meta: option_str(crate::mcp_attrs::meta_json(item)),
        }
    }
}

/// The names of the arguments (or variables), in order.
fn argument_names(item: &Item) -> Vec<String> {
    item.params
        .iter()
        .filter_map(|param| param.wire_name().map(|(name, _)| name))
        .collect()
}

/// The body of `get` or `read`: each parameter read (an argument from its string, context from
/// the call's context, the URI), then the call of the function.
struct Body {
    reads: Vec<TokenStream>,
    call: TokenStream,
}

impl Body {
    /// `argument_error` makes the error of an argument that is missing or cannot be read from
    /// `source`, a `StringArgError`; `context_error` the error of a context parameter that
    /// cannot be filled from `error`, a `ContextError`.
    fn of(
        item: &Item,
        krate: &TokenStream,
        argument_error: impl Fn(TokenStream) -> TokenStream,
        context_error: impl Fn(TokenStream) -> TokenStream,
    ) -> Body {
        let private = quote!(#krate::__private);
        let mut reads = Vec::new();
        let mut call_args = Vec::new();
        for (index, param) in item.params.iter().enumerate() {
            let value = format_ident!("__tooldef_parameter_{index}");
            let ty = &param.ty;
            match &param.kind {
                ParamKind::Field(_) => {
                    let Some((name, _)) = param.wire_name() else {
                        continue;
                    };
                    let read = argument_read(param, &name, &private);
                    let error = argument_error(quote!(source));
                    reads.push(quote! {
                        let #value = match #read {
                            ::std::result::Result::Ok(value) => value,
                            ::std::result::Result::Err(source) => {
                                return ::std::result::Result::Err(#error);
                            }
                        };
                    });
                }
                ParamKind::Context => {
                    let error = context_error(quote!(error));
                    let extract = quote_spanned! {ty.span()=>
                        <#ty as #krate::FromCallContext>::from_call_context(&__tooldef_context)
                    };
                    reads.push(quote! {
                        let #value = match #extract {
                            ::std::result::Result::Ok(value) => value,
                            ::std::result::Result::Err(error) => {
                                return ::std::result::Result::Err(#error);
                            }
                        };
                    });
                }
                ParamKind::ResourceUri => {
                    reads.push(quote! {
                        let #value = #krate::ResourceUri::new(__tooldef_uri);
                    });
                }
                // Validation refused them; nothing is expanded.
                ParamKind::WholeStruct(_) | ParamKind::Unsupported => continue,
            }
            call_args.push(quote!(#value));
        }
        Body {
            reads,
            call: call_expr(item, call_args),
        }
    }
}

/// The read of one argument from `__tooldef_arguments`, a `Result` of the parameter's type: an
/// `Option<T>` reads a `T` if it is there, a defaulted `T` reads one or takes the default, any
/// other `T` must be there. The type named in the call is spanned where the user wrote it.
fn argument_read(param: &Param, name: &str, private: &TokenStream) -> TokenStream {
    let default = param.arg.default.as_ref();
    let read = |function: &str, ty: &Type| {
        let function = Ident::new(function, Span::call_site());
        let call = spanned_generic_call(quote!(#private::#function), ty);
        quote!(#call(&mut __tooldef_arguments, #name))
    };
    match option_inner(&param.ty) {
        Some(inner) => {
            let read = read("optional_argument", inner);
            match default.and_then(|default| default.value.as_ref()) {
                Some(expr) => quote!(#read.map(|value| value.or_else(|| #expr))),
                None => read,
            }
        }
        None => match default {
            None => read("required_argument", &param.ty),
            Some(default) => {
                let read = read("optional_argument", &param.ty);
                match &default.value {
                    Some(expr) => quote!(#read.map(|value| value.unwrap_or_else(|| #expr))),
                    None => {
                        // A type without `Default` is reported at the `default` key.
                        let unwrap = quote_spanned!(default.span=> unwrap_or_default);
                        quote!(#read.map(|value| value.#unwrap()))
                    }
                }
            }
        },
    }
}

/// `function::<ty>`, its tokens spanned from the first token of `ty` to its last, so that an
/// error about `ty`'s bound is shown at `ty` as the user wrote it.
fn spanned_generic_call(function: TokenStream, ty: &Type) -> TokenStream {
    let (first, last) = first_and_last_span(ty);
    let function = respan(function, first);
    let open = quote_spanned!(first=> ::<);
    let close = quote_spanned!(last=> >);
    quote!(#function #open #ty #close)
}

/// The function's value turned into the reply (or the contents), by the conversion `convert`
/// gives, spanned at the return type (or at the function's name, for one that returns
/// nothing), so that a type that cannot be returned is an error there.
fn output_conversion(item: &Item, convert: impl Fn(Span) -> TokenStream) -> TokenStream {
    let span = match &item.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => item.func.sig.ident.span(),
    };
    convert(span)
}

/// `complete`, answering for each argument (or variable) with `#[arg(complete = f)]` by
/// calling `f`, and with no suggestions for the others; nothing (the trait's default, no
/// suggestions) when no parameter has one.
fn completion(item: &Item, krate: &TokenStream) -> TokenStream {
    let private = quote!(#krate::__private);
    let arms: Vec<TokenStream> = item
        .params
        .iter()
        .filter_map(|param| {
            let complete = param.arg.complete.as_ref()?;
            let (name, _) = param.wire_name()?;
            let function = &complete.value;
            let call = quote_spanned!(function.span()=> #private::complete);
            Some(quote! {
                if __tooldef_request.argument == #name {
                    return #call(#function, __tooldef_request).await;
                }
            })
        })
        .collect();
    if arms.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn complete(
            &self,
            __tooldef_request: #krate::CompletionRequest,
            __tooldef_context: #krate::CallContext,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<#krate::Completions, ::std::string::String>,
        > + ::std::marker::Send {
            let _ = __tooldef_context;
            async move {
                #(#arms)*
                ::std::result::Result::Ok(::std::default::Default::default())
            }
        }
    }
}

/// The item's type (in its hidden module), its identifier and its path.
fn item_type(item: &Item, krate: &TokenStream, doc: &str) -> (Ident, TokenStream, TokenStream) {
    let ident = item.type_ident();
    let (tokens, path) = tool_type(&ToolType {
        kind: item.kind,
        ident: &ident,
        vis: &item.func.vis,
        module: match &item.method {
            None => free_module(item.kind, &item.func.sig.ident),
            Some(_) => method_module(&ident),
        },
        krate,
        doc: Some(doc),
        holds: item.method.as_ref().map(|method| &method.self_ty),
    });
    (ident, tokens, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_read_its_way() {
        let private = quote!(p);
        let read = |param: syn::FnArg| {
            let syn::FnArg::Typed(typed) = param else {
                unreachable!()
            };
            let param = Param {
                pat: (*typed.pat).clone(),
                ty: (*typed.ty).clone(),
                kind: ParamKind::Context,
                arg: crate::attr::ArgAttrs::parse(&crate::ctxt::Ctxt::default(), &typed.attrs),
                doc: None,
                doc_span: None,
                forwarded: Vec::new(),
                serde: crate::attr::SerdeNames::default(),
            };
            argument_read(&param, "x", &private)
                .to_string()
                .replace(' ', "")
        };
        assert_eq!(
            read(syn::parse_quote!(x: u32)),
            "p::required_argument::<u32>(&mut__tooldef_arguments,\"x\")"
        );
        assert_eq!(
            read(syn::parse_quote!(x: Option<u32>)),
            "p::optional_argument::<u32>(&mut__tooldef_arguments,\"x\")"
        );
        assert_eq!(
            read(syn::parse_quote!(#[arg(default = 3)] x: u32)),
            "p::optional_argument::<u32>(&mut__tooldef_arguments,\"x\").map(|value|value.unwrap_or_else(||3))"
        );
        assert_eq!(
            read(syn::parse_quote!(#[arg(default)] x: u32)),
            "p::optional_argument::<u32>(&mut__tooldef_arguments,\"x\").map(|value|value.unwrap_or_default())"
        );
    }
}
