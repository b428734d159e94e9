//! The parsed tool: a function, its `#[tool]` attributes, docs and parameters.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, FnArg, GenericArgument, Ident, ItemFn, Pat, PathArguments, Type};

use crate::attr::{ArgAttrs, SerdeNames, ToolAttrs};
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
    /// What the forwarded `#[serde(…)]` attributes say about the names the argument is read under.
    pub serde: SerdeNames,
}

/// Where one of the names a parameter is read under comes from.
#[derive(Clone, Copy)]
pub enum NameSource {
    /// The parameter's own name.
    Own,
    /// `#[arg(rename = "…")]`, at the given string.
    ArgRename(proc_macro2::Span),
    /// A forwarded `#[serde(rename = "…")]` (or `rename(deserialize = "…")`), at the given string.
    SerdeRename(proc_macro2::Span),
    /// A forwarded `#[serde(alias = "…")]`, at the given string.
    Alias(proc_macro2::Span),
}

impl NameSource {
    /// The span of the attribute value that gave the name, if an attribute did.
    pub fn span(self) -> Option<proc_macro2::Span> {
        match self {
            NameSource::Own => None,
            NameSource::ArgRename(span)
            | NameSource::SerdeRename(span)
            | NameSource::Alias(span) => Some(span),
        }
    }
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
                .collect::<Vec<_>>();
            let serde = SerdeNames::parse(&forwarded);
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
                serde,
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
    /// The property name on the wire: `#[arg(rename = …)]`, else a forwarded
    /// `#[serde(rename = …)]`, else the parameter's name. `None` for a parameter that is not a
    /// property, or that serde skips.
    pub fn wire_name(&self) -> Option<(String, NameSource)> {
        let ParamKind::Field(ident) = &self.kind else {
            return None;
        };
        if self.serde.skipped {
            return None;
        }
        Some(match (&self.arg.rename, &self.serde.rename) {
            (Some(rename), _) => (rename.value.clone(), NameSource::ArgRename(rename.span)),
            (None, Some(rename)) => (rename.value.clone(), NameSource::SerdeRename(rename.span)),
            (None, None) => (unraw(ident), NameSource::Own),
        })
    }

    /// Every name serde reads the parameter's argument under: its wire name, then its aliases.
    pub fn read_names(&self) -> Vec<(String, NameSource)> {
        let Some(wire) = self.wire_name() else {
            return Vec::new();
        };
        let mut names = vec![wire];
        for alias in &self.serde.aliases {
            if names.iter().all(|(name, _)| *name != alias.value) {
                names.push((alias.value.clone(), NameSource::Alias(alias.span)));
            }
        }
        names
    }
}

/// Code as the user wrote it, for messages: the source text where there is one, else the tokens.
pub fn as_written<T: ToTokens>(node: &T) -> String {
    let tokens = node.to_token_stream();
    let spans: Vec<proc_macro2::Span> = tokens.clone().into_iter().map(|t| t.span()).collect();
    let joined = spans
        .first()
        .and_then(|first| spans.last().and_then(|last| first.join(*last)));
    joined
        .and_then(|span| span.source_text())
        .unwrap_or_else(|| tidy(&tokens.to_string()))
}

/// Tokens printed with rustfmt's spacing for the usual cases (`Vec<String>`, `"en".to_owned()`,
/// `vec![1, 2]`, `&'a str`), where `to_string` spaces every token apart.
fn tidy(text: &str) -> String {
    [
        (" :: ", "::"),
        (":: ", "::"),
        (" < ", "<"),
        ("< ", "<"),
        (" <", "<"),
        (" >", ">"),
        (" ,", ","),
        (" . ", "."),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        (" !", "!"),
        ("& ", "&"),
    ]
    .iter()
    .fold(text.to_owned(), |text, (from, to)| text.replace(from, to))
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

#[cfg(test)]
mod tests {
    use super::as_written;

    #[test]
    fn code_is_shown_as_written() {
        let ty: syn::Type = syn::parse_quote!(Vec<Option<std::string::String>>);
        assert_eq!(as_written(&ty), "Vec<Option<std::string::String>>");
        let ty: syn::Type = syn::parse_quote!((f64, &'a str));
        assert_eq!(as_written(&ty), "(f64, &'a str)");
        let expr: syn::Expr = syn::parse_quote!(vec!["id".to_owned(), String::new()]);
        assert_eq!(as_written(&expr), "vec![\"id\".to_owned(), String::new()]");
    }
}
