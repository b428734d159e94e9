//! Every compile-time check on the syntax of a tool. Problems are collected in the `Ctxt` and all
//! reported at once; each names the target that would refuse the tool and how to fix it.

use std::collections::HashMap;

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, GenericParam, ImplItem, ReturnType, Type};

use crate::ast::{self, NameSource, Param, ParamKind, ReceiverKind, Tool, ToolImpl};
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
    crate::mcp_attrs::check(cx, tool);
}

/// Runs every check on a `#[tools]` block: its shape, each tool, and what the tools share.
pub fn check_impl(cx: &Ctxt, block: &ToolImpl) {
    check_impl_shape(cx, block);
    for (_, tool) in &block.tools {
        check(cx, tool);
    }
    check_distinct_tools(cx, block);
}

/// The block must be an inherent `impl` of one named, `'static` type: the tools hold the value
/// in an `Arc` that every call shares (so no borrowed data), their types are named after it and
/// cannot be generic, and the block gets the `toolset` method, which a trait impl cannot take.
fn check_impl_shape(cx: &Ctxt, block: &ToolImpl) {
    let item = &block.item;
    let self_ty = ast::as_written(&*item.self_ty);
    if let Some((_, trait_path, _)) = &item.trait_ {
        cx.error_spanned_by(
            trait_path,
            format!(
                "#[tools] goes on an inherent `impl` block (`impl {self_ty} {{ … }}`), not on an \
                 implementation of `{}`: the block gets a `toolset` method, which a trait impl \
                 cannot hold; move the `#[tool]` methods into an `impl {self_ty}` block of \
                 their own (they can call the trait's methods from there)",
                ast::as_written(trait_path)
            ),
        );
    }
    // Where a lifetime is: a parameter of the `impl` (`impl<'a>`), else one written in the type
    // (`impl Index<'_>`); `'static` is fine.
    let generics = &item.generics;
    let only_lifetimes = generics
        .params
        .iter()
        .all(|param| matches!(param, GenericParam::Lifetime(_)));
    let lifetime = if generics.params.is_empty() {
        let mut finder = LifetimeFinder(None);
        syn::visit::Visit::visit_type(&mut finder, &item.self_ty);
        finder.0.map(|lifetime| lifetime.to_token_stream())
    } else {
        only_lifetimes.then(|| generics.to_token_stream())
    };
    if let Some(lifetime) = lifetime {
        cx.error_spanned_by(
            lifetime,
            format!(
                "#[tools] cannot go on an `impl` with a lifetime: the tools hold the value in an \
                 `Arc` that calls on any thread share for as long as the tool set lives, so it \
                 must be `'static`; have `{self_ty}` own its data (or hold `Arc`s) instead of \
                 borrowing it"
            ),
        );
    } else if !only_lifetimes {
        let name = block
            .self_ident
            .as_ref()
            .map_or_else(|| self_ty.clone(), ToString::to_string);
        cx.error_spanned_by(
            generics,
            format!(
                "#[tools] cannot go on a generic `impl`: each tool's type holds the value, and a \
                 tool's type and schema are fixed; put #[tools] on an `impl` of one concrete \
                 type (`impl {name}<…> {{ … }}` with each parameter given), one block per type \
                 you serve"
            ),
        );
    }
    if block.self_ident.is_none() {
        cx.error_spanned_by(
            &item.self_ty,
            "#[tools] goes on the `impl` block of a named type (a struct or an enum): the tools' \
             types are named after it",
        );
    }
    if block.tools.is_empty() {
        cx.error_at(
            proc_macro2::Span::call_site(),
            format!(
                "#[tools] found no `#[tool]` method in this `impl` block: mark each method to \
                 serve with #[tool] (a `#[tool]` written by a `macro_rules!` inside the block is \
                 not seen: let the macro write the whole `#[tools] impl {self_ty}` block)"
            ),
        );
    }
    for impl_item in &item.items {
        if let ImplItem::Fn(method) = impl_item
            && method.sig.ident == crate::expand::TOOLSET_METHOD
        {
            cx.error_spanned_by(
                &method.sig.ident,
                format!(
                    "#[tools] gives `{self_ty}` a method `{}` (its tools, as a \
                         `ToolSetBuilder`), and this one would clash with it: rename this method",
                    crate::expand::TOOLSET_METHOD
                ),
            );
        }
    }
}

struct LifetimeFinder(Option<syn::Lifetime>);

impl<'ast> syn::visit::Visit<'ast> for LifetimeFinder {
    fn visit_lifetime(&mut self, lifetime: &'ast syn::Lifetime) {
        if lifetime.ident != "static" {
            self.0.get_or_insert_with(|| lifetime.clone());
        }
    }
}

/// Two tools of one block under one name would make `toolset()` fail at `build()`, and two of
/// one type name would be two items of that name; both are known here, so they are errors here,
/// at the second tool.
fn check_distinct_tools(cx: &Ctxt, block: &ToolImpl) {
    let mut names: HashMap<String, &Tool> = HashMap::new();
    let mut types: HashMap<String, &Tool> = HashMap::new();
    for (_, tool) in &block.tools {
        let name = tool.wire_name();
        if let Some(first) = names.get(&name) {
            let span = tool
                .attrs
                .name
                .as_ref()
                .map_or_else(|| tool.func.sig.ident.span(), |given| given.span);
            cx.error_at(
                span,
                format!(
                    "the tool `{name}` is already in this block (the method `{}`), and a tool \
                     set needs distinct names: rename one with #[tool(name = \"…\")]",
                    first.func.sig.ident
                ),
            );
        } else {
            names.insert(name, tool);
        }
        let type_ident = tool.type_ident();
        if let Some(first) = types.get(&type_ident.to_string()) {
            cx.error_spanned_by(
                &type_ident,
                format!(
                    "the tools of the methods `{}` and `{}` would both have the type \
                     `{type_ident}`: give one another #[tool(type_name = \"…\")]",
                    first.func.sig.ident, tool.func.sig.ident
                ),
            );
        } else {
            types.insert(type_ident.to_string(), tool);
        }
    }
}

fn check_signature(cx: &Ctxt, tool: &Tool) {
    let sig = &tool.func.sig;
    check_receiver(cx, tool);
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            "a tool cannot be generic: its argument schema is fixed when the tool is listed; \
             use concrete types",
        );
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && let Type::ImplTrait(_) = &**ty
    {
        cx.error_spanned_by(
            ty,
            "a tool cannot return `impl Trait`: name the type, so that its output schema \
                 can be derived (for example `-> Forecast` or `-> Result<Forecast, Error>`)",
        );
    }
}

/// A method's tool holds the value in an `Arc` shared by every call, and calls run
/// concurrently: the method can borrow the value (`&self`) or take a clone of the `Arc`, nothing
/// else. A function with a receiver under `#[tool]` alone is a method whose block lacks `#[tools]`.
fn check_receiver(cx: &Ctxt, tool: &Tool) {
    let Some(method) = &tool.method else {
        if tool.func.sig.receiver().is_some() {
            // Spanned at the attribute: what is missing goes beside it, on the `impl` block.
            cx.error_at(
                proc_macro2::Span::call_site(),
                "this method's `impl` block needs `#[tools]`: a `#[tool]` method is a tool of \
                 the value its block is for, and `#[tools]` makes them (put `#[tools]`, from \
                 `tooldef`, above the `impl`; then serve the value with \
                 `Arc::new(value).toolset()`)",
            );
        }
        return;
    };
    let ReceiverKind::Refused(receiver) = &method.receiver else {
        return;
    };
    let message = match &*receiver.ty {
        Type::Reference(reference) if reference.mutability.is_some() => {
            "a tool method cannot take `&mut self`: every tool of the block shares one value and \
             calls run concurrently, so no call can have it to itself; take `&self` and keep what \
             changes behind interior mutability (an atomic, a `Mutex` or an `RwLock` field)"
                .to_owned()
        }
        ty if ast::is_self(ty) => "a tool method cannot take `self` by value: every call uses \
             the one value the tools share (in an `Arc`), so none can consume it; take `&self`, \
             or `self: Arc<Self>` to keep it beyond the call (to spawn a task, say)"
            .to_owned(),
        Type::Path(path) if ast::pointer_to_self(&path.path, "Box") => {
            "a tool method cannot take `self: Box<Self>`: the tools share the value in an `Arc`, \
             which cannot become a `Box`; take `&self`, or `self: Arc<Self>`"
                .to_owned()
        }
        ty => format!(
            "a tool method takes `&self` or `self: Arc<Self>`: the tools share the value in an \
             `Arc`, and `{}` cannot be made from one",
            ast::as_written(ty)
        ),
    };
    cx.error_spanned_by(receiver, message);
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
        // Context parameters are not arguments: they go with the whole struct as with fields.
        for param in tool
            .params
            .iter()
            .filter(|p| !matches!(p.kind, ParamKind::WholeStruct(_) | ParamKind::Context))
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

pub(crate) fn pat_name(param: &Param) -> String {
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
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
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
        (param.arg.header.as_ref().map(|h| h.span), "header"),
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
