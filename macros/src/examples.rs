//! `#[tool(example(city = "Paris", days = 3))]`: example arguments, checked here against what
//! the macro sees (the parameters, their names, the bounds their attributes declare) and written
//! as code that builds each value with the parameter's type, so that rustc checks the rest.
//!
//! What the macro cannot see (a `pattern`, a `format`, a value that is not a literal, a bound
//! named by a constant) is checked against the tool's schema by `ToolSetBuilder::build`.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Lit, Type};

use crate::ast::{self, Item, Param, ParamKind};
use crate::attr::{Example, ExampleEntry};
use crate::ctxt::Ctxt;
use crate::valid::{option_inner, some_argument};

/// Every check of the tool's examples; all problems go to `cx`.
pub fn check(cx: &Ctxt, tool: &Item) {
    let Some(first) = tool.attrs.examples.first() else {
        return;
    };
    if let Some(whole) = tool.params.iter().find_map(|p| match &p.kind {
        ParamKind::WholeStruct(inner) => Some(inner),
        _ => None,
    }) {
        cx.error_spanned_by(
            &first.tokens,
            format!(
                "`example` names the function's parameters, and this tool takes its arguments as \
                 one struct (`Args<{}>`), whose fields the macro cannot see: take the fields as \
                 parameters of the function to give examples",
                ast::as_written(whole)
            ),
        );
        return;
    }
    for example in &tool.attrs.examples {
        check_example(cx, tool, example);
    }
}

fn check_example(cx: &Ctxt, tool: &Item, example: &Example) {
    let mut given = HashSet::new();
    let mut meant = Vec::new();
    for entry in &example.entries {
        let key = ast::unraw(&entry.key);
        if !given.insert(key.clone()) {
            cx.error_spanned_by(
                &entry.key,
                format!("`{key}` is given twice in this example; keep one"),
            );
            continue;
        }
        let Some(param) = tool
            .params
            .iter()
            .find(|p| rust_name(p).as_ref() == Some(&key))
        else {
            // The parameter a slip was pointed to is not reported missing as well.
            meant.extend(unknown_parameter(cx, tool, entry, &key));
            continue;
        };
        match &param.kind {
            ParamKind::Field(_) if param.serde.skipped => cx.error_spanned_by(
                &entry.key,
                format!(
                    "`{key}` is skipped by serde (`#[serde(skip)]`), so the model never sends \
                     it: remove it from the example"
                ),
            ),
            ParamKind::Field(_) => check_bounds(cx, param, &key, &entry.value),
            ParamKind::Context => cx.error_spanned_by(
                &entry.key,
                format!(
                    "`{key}` is a context parameter (`{}`), filled from the call's context, not \
                     by the model: an example gives the model's arguments only; remove `{key}` \
                     from it",
                    ast::as_written(&param.ty)
                ),
            ),
            // Refused by the checks of the parameters, with their own reasons.
            ParamKind::WholeStruct(_) | ParamKind::ResourceUri | ParamKind::Unsupported => {}
        }
    }
    let missing: Vec<String> = tool
        .params
        .iter()
        .filter(|p| is_required(p))
        .filter_map(rust_name)
        .filter(|name| !given.contains(name) && !meant.contains(name))
        .map(|name| format!("`{name}`"))
        .collect();
    if !missing.is_empty() {
        let (what, them) = match missing.as_slice() {
            [one] => (format!("the required argument {one}"), "it"),
            [rest @ .., last] => (
                format!("the required arguments {} and {last}", rest.join(", ")),
                "them",
            ),
            [] => unreachable!(),
        };
        cx.error_spanned_by(
            &example.tokens,
            format!(
                "this example leaves out {what}: an example must give every required argument \
                 (each parameter that is not an `Option` and has no default), as a model's call \
                 must; add {them}"
            ),
        );
    }
}

/// A key that names no parameter: the parameter's wire name written for its Rust name, a slip,
/// or a name the function does not have.
/// Returns the parameter the message points to, if it points to one.
fn unknown_parameter(cx: &Ctxt, tool: &Item, entry: &ExampleEntry, key: &str) -> Option<String> {
    let arguments: Vec<(&Param, String)> = tool
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Field(_)) && !p.serde.skipped)
        .filter_map(|p| rust_name(p).map(|name| (p, name)))
        .collect();
    if let Some((_, name)) = arguments
        .iter()
        .find(|(p, _)| p.read_names().iter().any(|(wire, _)| wire == key))
    {
        cx.error_spanned_by(
            &entry.key,
            format!(
                "`{key}` is the name on the wire of the parameter `{name}`; an example names \
                 parameters as the function does (the JSON is written with the wire names): \
                 write `{name} = …`"
            ),
        );
        return Some(name.clone());
    }
    let fn_name = ast::unraw(&tool.func.sig.ident);
    let names: Vec<&str> = arguments.iter().map(|(_, name)| name.as_str()).collect();
    let closest = crate::attr::closest(key, names.iter().copied());
    let message = if names.is_empty() {
        format!("`{fn_name}` has no parameter `{key}`, and takes no arguments from the model")
    } else {
        let suggestion = closest
            .map(|name| format!("did you mean `{name}`? "))
            .unwrap_or_default();
        let listed: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
        format!(
            "`{fn_name}` has no parameter `{key}`: {suggestion}its arguments are {}",
            listed.join(", ")
        )
    };
    cx.error_spanned_by(&entry.key, message);
    closest.map(str::to_owned)
}

/// The parameter's Rust name, for a parameter that is a plain name.
fn rust_name(param: &Param) -> Option<String> {
    match &param.pat {
        syn::Pat::Ident(pat) => Some(ast::unraw(&pat.ident)),
        _ => None,
    }
}

/// Whether the model must send the argument: a property that is not an `Option` and has no
/// default (`#[arg(default)]` or a forwarded `#[serde(default)]`).
fn is_required(param: &Param) -> bool {
    matches!(param.kind, ParamKind::Field(_))
        && !param.serde.skipped
        && !param.serde.default
        && param.arg.default.is_none()
        && option_inner(&param.ty).is_none()
}

/// A number as written in an attribute or an example.
#[derive(Clone, Copy)]
enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    fn of(expr: &Expr) -> Option<Number> {
        match expr {
            Expr::Group(group) => Number::of(&group.expr),
            Expr::Paren(paren) => Number::of(&paren.expr),
            Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Neg(_)) => {
                Some(match Number::of(&unary.expr)? {
                    Number::Int(n) => Number::Int(-n),
                    Number::Float(x) => Number::Float(-x),
                })
            }
            Expr::Lit(lit) => match &lit.lit {
                Lit::Int(int) => int.base10_parse().ok().map(Number::Int),
                Lit::Float(float) => float.base10_parse().ok().map(Number::Float),
                _ => None,
            },
            _ => None,
        }
    }

    fn cmp(self, other: Number) -> Option<std::cmp::Ordering> {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => Some(a.cmp(&b)),
            (a, b) => a.as_f64().partial_cmp(&b.as_f64()),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            Number::Int(n) => n as f64,
            Number::Float(x) => x,
        }
    }
}

/// `range(…)` or `length(…)` in a forwarded `#[schemars]`, `#[validate]` or `#[garde]`, as
/// schemars reads them into `minimum`/`maximum` and `minLength`/`maxLength`.
struct Bound {
    length: bool,
    min: Option<Expr>,
    max: Option<Expr>,
    equal: Option<Expr>,
    /// `range(max = 14)`, as written, for messages.
    written: String,
}

/// The bounds the parameter's attributes declare, read as schemars reads them (`min`, `max`
/// and `equal`; anything else in them, such as validator's `message`, is skipped).
fn bounds(param: &Param) -> Vec<Bound> {
    let mut out = Vec::new();
    for attr in &param.forwarded {
        if !["schemars", "validate", "garde"]
            .iter()
            .any(|name| attr.path().is_ident(name))
        {
            continue;
        }
        let _ = attr.parse_nested_meta(|meta| {
            let length = meta.path.is_ident("length");
            if !(length || meta.path.is_ident("range")) || !meta.input.peek(syn::token::Paren) {
                return skip(&meta);
            }
            let group: proc_macro2::Group = meta.input.fork().parse()?;
            let path = &meta.path;
            let mut bound = Bound {
                length,
                min: None,
                max: None,
                equal: None,
                written: ast::as_written(&quote!(#path #group)),
            };
            meta.parse_nested_meta(|inner| {
                let slot = if inner.path.is_ident("min") {
                    &mut bound.min
                } else if inner.path.is_ident("max") {
                    &mut bound.max
                } else if inner.path.is_ident("equal") {
                    &mut bound.equal
                } else {
                    return skip(&inner);
                };
                let value: Expr = inner.value()?.parse()?;
                // schemars takes `min = "1"` as the expression in the string.
                *slot = match &value {
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Str(text),
                        ..
                    }) => text.parse().ok(),
                    _ => Some(value),
                };
                Ok(())
            })?;
            out.push(bound);
            Ok(())
        });
    }
    out
}

fn skip(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip(&inner))?;
    }
    Ok(())
}

/// The value an example gives, seen through `Some(…)` for an `Option` parameter.
fn literal<'a>(value: &'a Expr, ty: &Type) -> &'a Expr {
    match value {
        Expr::Group(group) => literal(&group.expr, ty),
        Expr::Paren(paren) => literal(&paren.expr, ty),
        _ => match option_inner(ty) {
            Some(inner) => some_argument(value).map_or(value, |arg| literal(arg, inner)),
            None => value,
        },
    }
}

/// A literal outside a bound the parameter declares: a number outside its `range`, a string
/// whose length (in characters, as JSON Schema counts) is outside its `length`.
fn check_bounds(cx: &Ctxt, param: &Param, key: &str, value: &Expr) {
    let value = literal(value, &param.ty);
    let given = match value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Given::Text(text.value().chars().count()),
        _ => match Number::of(value) {
            Some(number) => Given::Number(number),
            None => return,
        },
    };
    let shown = ast::as_written(value);
    for bound in bounds(param) {
        let (actual, gives) = match (&given, bound.length) {
            (Given::Number(n), false) => (*n, format!("the example gives {shown}")),
            (Given::Text(chars), true) => (
                Number::Int(*chars as i128),
                format!(
                    "the example gives {shown} ({chars} character{})",
                    if *chars == 1 { "" } else { "s" }
                ),
            ),
            _ => continue,
        };
        let limits = [
            (&bound.equal, std::cmp::Ordering::Equal, ""),
            (&bound.min, std::cmp::Ordering::Greater, "at least "),
            (&bound.max, std::cmp::Ordering::Less, "at most "),
        ];
        for (limit, keeps, words) in limits {
            let Some(limit_expr) = limit else { continue };
            let Some(limit) = Number::of(limit_expr) else {
                continue;
            };
            let Some(order) = actual.cmp(limit) else {
                continue;
            };
            if order == std::cmp::Ordering::Equal || order == keeps {
                continue;
            }
            let limit_written = ast::as_written(limit_expr);
            let unit = match (bound.length, limit_written.as_str()) {
                (false, _) => "",
                (true, "1") => " character long",
                (true, _) => " characters long",
            };
            cx.error_spanned_by(
                value,
                format!(
                    "`{key}` must be {words}{limit_written}{unit} (its `{}`), {gives}",
                    bound.written
                ),
            );
        }
    }
}

enum Given {
    Number(Number),
    /// A string literal's length in characters.
    Text(usize),
}

/// `#[tool]`'s `DefinitionParts::examples`: `None` for a tool without examples (no code at
/// all), else a function giving each example's JSON object, made once, when the definition is.
/// Each value is built as a `let` of the parameter's type, spanned at the value, so that rustc
/// reports a value of the wrong type there; its JSON is its `Serialize` form, under the
/// parameter's wire name.
pub fn definition_field(tool: &Item, krate: &TokenStream) -> TokenStream {
    if tool.attrs.examples.is_empty() {
        return quote!(::std::option::Option::None);
    }
    let private = quote!(#krate::__private);
    let examples = tool.attrs.examples.iter().map(|example| {
        let mut named = Vec::new();
        let mut flattened = Vec::new();
        for entry in &example.entries {
            let key = ast::unraw(&entry.key);
            let Some(param) = tool
                .params
                .iter()
                .find(|p| rust_name(p).as_ref() == Some(&key))
            else {
                continue;
            };
            let ty = &param.ty;
            let span = entry.value.span();
            let value = written_value(&entry.value, ty);
            let built = quote_spanned! {span=>
                {
                    let __tooldef_value: #ty = #value;
                    #private::ExampleArgument::example_json(&__tooldef_value)
                }
            };
            match (param.serde.flatten, param.wire_name()) {
                (Some(_), _) => flattened.push(built),
                (None, Some((wire, _))) => named.push(quote!((#wire, #built))),
                (None, None) => {}
            }
        }
        quote!(#private::example_arguments(&mut [#(#named),*], &mut [#(#flattened),*]))
    });
    quote! {
        ::std::option::Option::Some(|| ::std::vec![#(#examples),*])
    }
}

/// The value as the parameter's type takes it: a string literal for a `String` is made one, and
/// a plain value for an `Option` is wrapped in `Some` (unless it is `None` or `Some(…)`),
/// decided on the type as written. Anything else is the expression as it is.
fn written_value(value: &Expr, ty: &Type) -> TokenStream {
    let span = value.span();
    let Some(inner) = option_inner(ty) else {
        return plain_value(value, ty);
    };
    if is_none(value) {
        return quote!(#value);
    }
    let inner_value = plain_value(some_argument(value).unwrap_or(value), inner);
    quote_spanned!(span=> ::std::option::Option::Some(#inner_value))
}

fn plain_value(value: &Expr, ty: &Type) -> TokenStream {
    let is_literal_str = matches!(
        value,
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(_),
            ..
        })
    );
    if is_literal_str && is_string(ty) {
        quote_spanned!(value.span()=> ::std::string::String::from(#value))
    } else {
        quote!(#value)
    }
}

/// `String` (any path ending in it, without arguments).
fn is_string(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    path.qself.is_none()
        && path
            .path
            .segments
            .last()
            .is_some_and(|last| last.ident == "String" && last.arguments.is_none())
}

/// `None`, `Option::None` or `std::option::Option::None`.
fn is_none(value: &Expr) -> bool {
    match value {
        Expr::Group(group) => is_none(&group.expr),
        Expr::Paren(paren) => is_none(&paren.expr),
        Expr::Path(path) => {
            path.qself.is_none()
                && path
                    .path
                    .segments
                    .last()
                    .is_some_and(|last| last.ident == "None" && last.arguments.is_none())
        }
        _ => false,
    }
}
