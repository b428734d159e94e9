//! The parsed tool: a function, its `#[tool]` attributes, docs and parameters.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, FnArg, GenericArgument, Ident, ItemFn, Pat, PathArguments, Type};

use crate::attr::{ArgAttrs, ToolAttrs};
use crate::ctxt::Ctxt;
use crate::docs::{self, FunctionDocs};

/// A function under `#[tool]`.
pub struct Tool {
    /// The function as the user wrote it, minus the parameter attributes only the macro reads.
    pub func: ItemFn,
    pub attrs: ToolAttrs,
    pub docs: FunctionDocs,
    pub params: Vec<Param>,
}

/// One parameter of the function.
pub struct Param {
    pub pat: Pat,
    pub ty: Type,
    pub kind: ParamKind,
    pub arg: ArgAttrs,
    /// The `///` doc comment on the parameter.
    pub doc: Option<String>,
    /// Where the doc comment is, for errors about it.
    pub doc_span: Option<proc_macro2::Span>,
    /// Attributes handed on to the generated argument field (`#[schemars(…)]`, `#[serde(…)]`…).
    pub forwarded: Vec<Attribute>,
}

/// What a parameter contributes to the tool's arguments.
pub enum ParamKind {
    /// One property of the argument object, named after the parameter.
    Field(Ident),
    /// `Args(a): Args<T>`: `T` is the whole argument object.
    WholeStruct(Type),
    /// Injected context (`State<T>`, `CallContext`, or marked `#[context]`): filled from the
    /// call's context, not part of the arguments.
    Context,
    /// A pattern the macro cannot name a property after (validation reports it).
    Unsupported,
}

/// Attributes on a parameter that belong to the macro or to the generated argument field, and
/// so must not stay on the function, where rustc would reject them.
const PARAM_ATTRIBUTES_TAKEN: &[&str] = &[
    "doc", "arg", "context", "schemars", "serde", "validate", "garde",
];
/// Of those, the ones handed on to the generated field.
const PARAM_ATTRIBUTES_FORWARDED: &[&str] = &["schemars", "serde", "validate", "garde"];

fn is_taken(attr: &Attribute) -> bool {
    PARAM_ATTRIBUTES_TAKEN
        .iter()
        .any(|name| attr.path().is_ident(name))
}

impl Tool {
    /// Parses the function; problems go to `cx`. `None` when the item is not a function at all.
    pub fn from_tokens(cx: &Ctxt, args: TokenStream, input: TokenStream) -> Option<Tool> {
        let attrs = ToolAttrs::parse(cx, args);
        let mut func: ItemFn = match syn::parse2(input) {
            Ok(func) => func,
            Err(err) => {
                cx.syn_error(syn::Error::new(
                    err.span(),
                    "#[tool] goes on a function (`fn` or `async fn`)",
                ));
                return None;
            }
        };
        let docs = docs::doc_text(&func.attrs)
            .map(|text| docs::split_function_docs(&text))
            .unwrap_or_default();

        let mut params = Vec::new();
        for input in &mut func.sig.inputs {
            // A receiver is reported by validation; it has nothing to parse.
            let FnArg::Typed(typed) = input else { continue };
            let arg = ArgAttrs::parse(cx, &typed.attrs);
            let doc = docs::doc_text(&typed.attrs);
            let doc_span = typed
                .attrs
                .iter()
                .find(|a| a.path().is_ident("doc"))
                .map(syn::spanned::Spanned::span);
            let forwarded = typed
                .attrs
                .iter()
                .filter(|a| {
                    PARAM_ATTRIBUTES_FORWARDED
                        .iter()
                        .any(|n| a.path().is_ident(n))
                })
                .cloned()
                .collect();
            let marked_context = typed.attrs.iter().any(|a| a.path().is_ident("context"));
            typed.attrs.retain(|a| !is_taken(a));
            let kind = match (&*typed.pat, whole_struct_inner(&typed.ty)) {
                _ if marked_context || is_context_type(&typed.ty) => ParamKind::Context,
                (_, Some(inner)) => ParamKind::WholeStruct(inner.clone()),
                (Pat::Ident(pat), None) if pat.subpat.is_none() => {
                    ParamKind::Field(pat.ident.clone())
                }
                _ => ParamKind::Unsupported,
            };
            params.push(Param {
                pat: (*typed.pat).clone(),
                ty: (*typed.ty).clone(),
                kind,
                arg,
                doc,
                doc_span,
                forwarded,
            });
        }
        Some(Tool {
            func,
            attrs,
            docs,
            params,
        })
    }

    /// The tool's name on the wire: `#[tool(name = …)]`, else the function's name.
    pub fn wire_name(&self) -> String {
        match &self.attrs.name {
            Some(name) => name.value.clone(),
            None => unraw(&self.func.sig.ident),
        }
    }
}

impl Param {
    /// The property name on the wire: `#[arg(rename = …)]`, else the parameter's name.
    pub fn wire_name(&self) -> Option<String> {
        match (&self.kind, &self.arg.rename) {
            (ParamKind::Field(_), Some(rename)) => Some(rename.value.clone()),
            (ParamKind::Field(ident), None) => Some(unraw(ident)),
            _ => None,
        }
    }
}

/// `r#type` → `type`.
pub fn unraw(ident: &Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// `State<T>`, `CallContext` and `CancellationToken` are context without being marked (as axum's extractors are known
/// by their types).
fn is_context_type(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    path.path.segments.last().is_some_and(|last| {
        (last.ident == "State" && matches!(last.arguments, PathArguments::AngleBracketed(_)))
            || ((last.ident == "CallContext" || last.ident == "CancellationToken")
                && last.arguments.is_none())
    })
}

/// `Args<T>` (any path ending in `Args` with one type argument) → `T`.
fn whole_struct_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Args" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(inner)] => Some(inner),
        _ => None,
    }
}

/// The function with the parameter attributes only the macro understands removed, so that it can
/// be emitted beside compile errors without adding rustc's own complaints about them.
pub fn strip_param_attributes(input: TokenStream) -> TokenStream {
    match syn::parse2::<ItemFn>(input.clone()) {
        Ok(mut func) => {
            for input in &mut func.sig.inputs {
                if let FnArg::Typed(typed) = input {
                    typed.attrs.retain(|a| !is_taken(a));
                }
            }
            func.into_token_stream()
        }
        Err(_) => input,
    }
}
