//! Every compile-time check on the syntax of a tool. Problems are collected in the `Ctxt` and all
//! reported at once; each names the target that would refuse the tool and how to fix it.

use std::collections::HashMap;

use syn::spanned::Spanned;
use syn::{Expr, FnArg, ReturnType, Type};

use crate::ast::{NameSource, Param, ParamKind, Tool};
use crate::ctxt::Ctxt;

/// OpenAI rejects a function description over this many characters.
const MAX_DESCRIPTION_CHARS: usize = 1024;
/// OpenAI and Anthropic accept at most 64 characters in a tool name.
const MAX_NAME_CHARS: usize = 64;

/// Runs every check.
pub fn check(cx: &Ctxt, tool: &Tool) {
    check_signature(cx, tool);
    check_name(cx, tool);
    check_description(cx, tool);
    check_params(cx, tool);
    check_argument_docs(cx, tool);
}

fn check_signature(cx: &Ctxt, tool: &Tool) {
    let sig = &tool.func.sig;
    for input in &sig.inputs {
        if let FnArg::Receiver(receiver) = input {
            cx.error_spanned_by(
                receiver,
                "#[tool] goes on a free function, not a method: a tool is called with its \
                 arguments alone; move the function out of the `impl` block and take what it \
                 needs of `self` as a parameter",
            );
        }
    }
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            "a tool cannot be generic: its argument schema is fixed when the tool is listed; \
             use concrete types",
        );
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        if let Type::ImplTrait(_) = &**ty {
            cx.error_spanned_by(
                ty,
                "a tool cannot return `impl Trait`: name the type, so that its output schema \
                 can be derived (for example `-> Forecast` or `-> Result<Forecast, Error>`)",
            );
        }
    }
}

fn check_name(cx: &Ctxt, tool: &Tool) {
    let name = tool.wire_name();
    let Some(why) = name_problem(&name) else {
        return;
    };
    let message = format!(
        "the tool name `{name}` is not portable: {why}; choose a name matching \
         ^[a-zA-Z_][a-zA-Z0-9_-]{{0,63}}$"
    );
    match &tool.attrs.name {
        Some(given) => cx.error_at(given.span, message),
        None => cx.error_spanned_by(
            &tool.func.sig.ident,
            format!("{message}, with #[tool(name = \"…\")]"),
        ),
    }
}

/// Which rule of `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$` a name breaks, and which target needs it.
fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".to_owned());
    }
    if name.len() > MAX_NAME_CHARS {
        return Some(format!(
            "it is {} characters long and OpenAI and Anthropic accept at most {MAX_NAME_CHARS}",
            name.len()
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        let shown = if bad == ' ' {
            "a space".to_owned()
        } else {
            format!("`{bad}`")
        };
        return Some(format!(
            "it contains {shown}, and OpenAI and Anthropic accept only ASCII letters, digits, \
             `_` and `-`"
        ));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return Some("Gemini needs a name to start with a letter or `_`".to_owned());
    }
    None
}

fn check_description(cx: &Ctxt, tool: &Tool) {
    match (&tool.attrs.description, &tool.docs.description) {
        (None, None) => cx.error_spanned_by(
            &tool.func.sig.ident,
            "a tool needs a description, which is how the model knows when to call it: add a \
             `///` doc comment to the function, or #[tool(description = \"…\")]",
        ),
        (Some(given), _) => check_description_length(cx, &given.value, given.span),
        (None, Some(doc)) => {
            check_description_length(cx, doc, tool.func.sig.ident.span());
        }
    }
}

fn check_description_length(cx: &Ctxt, description: &str, span: proc_macro2::Span) {
    let chars = description.chars().count();
    if chars > MAX_DESCRIPTION_CHARS {
        cx.error_at(
            span,
            format!(
                "the tool description is {chars} characters long and OpenAI rejects more than \
                 {MAX_DESCRIPTION_CHARS}: shorten it, or move details into the parameters' docs"
            ),
        );
    }
}

fn check_params(cx: &Ctxt, tool: &Tool) {
    let mut read_names: HashMap<String, (&Param, NameSource)> = HashMap::new();
    let whole: Vec<&Param> = tool
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::WholeStruct(_)))
        .collect();
    if !whole.is_empty() {
        for param in tool
            .params
            .iter()
            .filter(|p| !matches!(p.kind, ParamKind::WholeStruct(_)))
        {
            cx.error_spanned_by(
                &param.pat,
                "a tool that takes its arguments as a whole struct (`Args<T>`) cannot also take \
                 single parameters: move this one into the struct",
            );
        }
        for extra in whole.iter().skip(1) {
            cx.error_spanned_by(
                &extra.ty,
                "a tool takes at most one whole argument struct (`Args<T>`): merge the structs",
            );
        }
    }

    for param in &tool.params {
        if let Type::ImplTrait(_) = &param.ty {
            cx.error_spanned_by(
                &param.ty,
                "a tool parameter cannot be `impl Trait`: its schema is generated from a \
                 concrete type; name the type",
            );
        }
        match &param.kind {
            ParamKind::Unsupported => cx.error_spanned_by(
                &param.pat,
                "a tool parameter must be a plain name (`city: String`), or the whole-struct \
                 form (`Args(args): Args<SearchArgs>`); destructure inside the function",
            ),
            ParamKind::WholeStruct(_) => {
                for (present, key) in [
                    (param.arg.rename.as_ref().map(|r| r.span), "rename"),
                    (param.arg.default.as_ref().map(|d| d.span), "default"),
                    (
                        param.arg.description.as_ref().map(|d| d.span),
                        "description",
                    ),
                    (param.arg.deprecated.as_ref().map(|d| d.span), "deprecated"),
                ] {
                    if let Some(span) = present {
                        cx.error_at(
                            span,
                            format!(
                                "`{key}` does not apply to the whole argument struct: put \
                                 serde/schemars attributes on the struct's fields instead"
                            ),
                        );
                    }
                }
            }
            ParamKind::Field(_) => {
                check_argument_type(cx, &param.ty);
                check_option_default(cx, param);
            }
            ParamKind::Context => check_context_param(cx, param),
        }
        if let (Some(_), Some(described)) = (&param.doc, &param.arg.description) {
            cx.error_at(
                described.span,
                "this parameter has both a `///` doc comment and #[arg(description = …)]: \
                 keep one",
            );
        }
        check_names(cx, param, &mut read_names);
    }
}

/// The names serde reads arguments under must be distinct across parameters: with two
/// parameters under one name (renamed by `#[arg]` or by a forwarded `#[serde]`, or through a
/// `#[serde(alias)]`), the schema would require the name twice and serde would fill only one of
/// them, so every call would fail.
fn check_names<'p>(
    cx: &Ctxt,
    param: &'p Param,
    read_names: &mut HashMap<String, (&'p Param, NameSource)>,
) {
    if let (Some(arg), Some(serde)) = (&param.arg.rename, &param.serde.rename) {
        cx.error_at(
            serde.span,
            format!(
                "`{}` is renamed twice, to \"{}\" by #[arg(rename)] and to \"{}\" by \
                 #[serde(rename)]: keep one",
                pat_name(param),
                arg.value,
                serde.value
            ),
        );
    }
    for (name, source) in param.read_names() {
        let Some(&(first, first_source)) = read_names.get(&name) else {
            read_names.insert(name, (param, source));
            continue;
        };
        let span = source
            .span()
            .or(first_source.span())
            .unwrap_or_else(|| param.pat.span());
        let both = format!(
            "the parameters {} and {}",
            described(first, &name, first_source),
            described(param, &name, source)
        );
        let message = if matches!(source, NameSource::Alias(_))
            || matches!(first_source, NameSource::Alias(_))
        {
            format!(
                "{both} would both be read from the argument `{name}`: serde would fill only one \
                 of them; remove the alias, or give one of them another name with \
                 #[arg(rename = \"…\")]"
            )
        } else {
            format!(
                "{both} would both be the argument `{name}`: the model can send it only once, so \
                 one of them could never be filled; give one of them another name with \
                 #[arg(rename = \"…\")]"
            )
        };
        cx.error_at(span, message);
    }
}

/// "`limit` (renamed by #[serde(rename = "pageSize")])".
fn described(param: &Param, name: &str, source: NameSource) -> String {
    let param = pat_name(param);
    match source {
        NameSource::Own => format!("`{param}`"),
        NameSource::ArgRename(_) => format!("`{param}` (renamed by #[arg(rename = \"{name}\")])"),
        NameSource::SerdeRename(_) => {
            format!("`{param}` (renamed by #[serde(rename = \"{name}\")])")
        }
        NameSource::Alias(_) => format!("`{param}` (through #[serde(alias = \"{name}\")])"),
    }
}

fn pat_name(param: &Param) -> String {
    quote::ToTokens::to_token_stream(&param.pat).to_string()
}

/// `#[arg(default = Some(…))]` on an `Option<T>` parameter: `null` is read as absent, so the
/// default would apply whenever the model sends nothing, and `None` could never be chosen.
fn check_option_default(cx: &Ctxt, param: &Param) {
    let Some(Some(expr)) = param.arg.default.as_ref().map(|d| &d.value) else {
        return;
    };
    let Some(inner_ty) = option_inner(&param.ty) else {
        return;
    };
    let Some(inner_expr) = some_argument(expr) else {
        return;
    };
    let name = pat_name(param);
    let inner_ty = crate::ast::as_written(inner_ty);
    let inner_expr = crate::ast::as_written(inner_expr);
    cx.error_spanned_by(
        expr,
        format!(
            "a default of `Some(…)` makes `None` unreachable: tooldef reads a `null` argument as \
             absent, so this default would apply whenever the model sends no value; take \
             `{name}: {inner_ty}` with #[arg(default = {inner_expr})], or drop the default so \
             that an absent argument is `None`"
        ),
    );
}

/// `Option<T>` (any path ending in `Option` with one type argument) → `T`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [syn::GenericArgument::Type(inner)] => Some(inner),
        _ => None,
    }
}

/// `Some(x)` (or `Option::Some(x)`, `std::option::Option::Some(x)`) → `x`.
fn some_argument(expr: &Expr) -> Option<&Expr> {
    match expr {
        Expr::Group(group) => some_argument(&group.expr),
        Expr::Paren(paren) => some_argument(&paren.expr),
        Expr::Call(call) => {
            let Expr::Path(func) = &*call.func else {
                return None;
            };
            let is_some = func.path.segments.last().is_some_and(|s| s.ident == "Some");
            match (is_some, call.args.len()) {
                (true, 1) => call.args.first(),
                _ => None,
            }
        }
        _ => None,
    }
}

/// What the syntax shows of an argument's type: borrowed data and trait objects can never be
/// deserialised from the model's JSON. (Everything else about types is a trait bound.)
fn check_argument_type(cx: &Ctxt, ty: &Type) {
    if let Type::Reference(reference) = ty {
        let owned = match &*reference.elem {
            Type::Path(p) if p.path.is_ident("str") => "String".to_owned(),
            Type::Slice(slice) => {
                let item = &slice.elem;
                format!("Vec<{}>", quote::quote!(#item))
            }
            elem => quote::quote!(#elem).to_string(),
        };
        cx.error_spanned_by(
            ty,
            format!(
                "a tool argument cannot be borrowed: arguments are deserialised from the JSON the \
                 model sent, so they own their data; take `{owned}` instead"
            ),
        );
        return;
    }
    let mut finder = TraitObjectFinder(None);
    syn::visit::Visit::visit_type(&mut finder, ty);
    if let Some(object) = finder.0 {
        cx.error_spanned_by(
            object,
            "a tool argument cannot be a trait object: its schema and its deserialisation need \
             a concrete type; take an enum of the cases instead",
        );
    }
}

struct TraitObjectFinder(Option<syn::TypeTraitObject>);

impl<'ast> syn::visit::Visit<'ast> for TraitObjectFinder {
    fn visit_type_trait_object(&mut self, object: &'ast syn::TypeTraitObject) {
        self.0.get_or_insert_with(|| object.clone());
    }
}

/// A context parameter is filled by the server and never seen by the model, so what would
/// describe it to the model has nowhere to go.
fn check_context_param(cx: &Ctxt, param: &Param) {
    for (span, key) in [
        (param.arg.default.as_ref().map(|d| d.span), "default"),
        (param.arg.rename.as_ref().map(|r| r.span), "rename"),
        (
            param.arg.description.as_ref().map(|d| d.span),
            "description",
        ),
        (param.arg.deprecated.as_ref().map(|d| d.span), "deprecated"),
    ] {
        if let Some(span) = span {
            cx.error_at(
                span,
                format!(
                    "`{key}` does not apply to a context parameter: it is filled from the call's \
                     context (`CallContext`), not from the model's arguments, and is not part of \
                     the schema"
                ),
            );
        }
    }
    if let Some(doc_span) = param.doc_span {
        cx.error_at(
            doc_span,
            "a context parameter is not shown to the model, so its doc comment would go nowhere: \
             use a `//` comment",
        );
    }
    for attr in &param.forwarded {
        cx.error_spanned_by(
            attr,
            "a context parameter is not part of the schema, so schemars and serde attributes \
             have no effect on it: remove this attribute",
        );
    }
}

/// Every entry of the `# Arguments` section must name a parameter, and a parameter is documented
/// in one place only: a doc that names nothing would otherwise be silently lost.
fn check_argument_docs(cx: &Ctxt, tool: &Tool) {
    for entry in &tool.docs.arguments {
        let param = tool.params.iter().find(|p| match &p.kind {
            ParamKind::Field(ident) => crate::ast::unraw(ident) == entry.name,
            _ => false,
        });
        match param {
            None => cx.error_spanned_by(
                &tool.func.sig.ident,
                format!(
                    "the `# Arguments` section of the doc comment documents `{}`, which is not a \
                     parameter of this function: fix the name or remove the entry",
                    entry.name
                ),
            ),
            Some(param) if param.doc.is_some() || param.arg.description.is_some() => cx
                .error_spanned_by(
                    &param.pat,
                    format!(
                        "`{}` is documented twice, in the `# Arguments` section and on the \
                         parameter: keep one",
                        entry.name
                    ),
                ),
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::name_problem;

    fn is_portable_name(name: &str) -> bool {
        name_problem(name).is_none()
    }

    #[test]
    fn name_problems_say_which_rule() {
        assert!(name_problem("fs.read").unwrap().contains("`.`"));
        assert!(name_problem("a b").unwrap().contains("a space"));
        assert!(name_problem("2fa").unwrap().contains("Gemini"));
    }

    #[test]
    fn portable_names() {
        assert!(is_portable_name("get_weather"));
        assert!(is_portable_name("_x-1"));
        assert!(is_portable_name(&"a".repeat(64)));
        assert!(!is_portable_name(&"a".repeat(65)));
        assert!(!is_portable_name("fs.read"));
        assert!(!is_portable_name("1abc"));
        assert!(!is_portable_name("-abc"));
        assert!(!is_portable_name(""));
        assert!(!is_portable_name("café"));
    }
}
