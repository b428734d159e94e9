//! Every compile-time check on the syntax of a tool, and those a prompt's and a resource's
//! function share with it (their own are in `strings`). Problems are collected in the `Ctxt`
//! and all reported at once; each names the target that would refuse the item and how to fix it.

use std::collections::HashMap;

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, GenericParam, ImplItem, ReturnType, Type};

use crate::ast::{self, Item, NameSource, Param, ParamKind, ReceiverKind, ToolImpl};
use crate::attr::Kind;
use crate::ctxt::Ctxt;

/// OpenAI rejects a function description over this many characters.
const MAX_DESCRIPTION_CHARS: usize = 1024;
/// OpenAI and Anthropic accept at most 64 characters in a tool name.
const MAX_NAME_CHARS: usize = 64;

/// Runs every check of a tool, a prompt or a resource.
pub fn check(cx: &Ctxt, item: &Item) {
    check_signature(cx, item);
    if item.kind == Kind::Tool {
        check_name(cx, item);
        check_description(cx, item);
        crate::examples::check(cx, item);
    }
    check_params(cx, item);
    check_argument_docs(cx, item);
    crate::mcp_attrs::check(cx, item);
    if item.kind != Kind::Tool {
        crate::strings::check(cx, item);
    }
}

/// Runs every check on a `#[tools]` block: its shape, each item, and what the items share.
pub fn check_impl(cx: &Ctxt, block: &ToolImpl) {
    check_impl_shape(cx, block);
    for (_, item) in &block.items {
        check(cx, item);
    }
    check_distinct_items(cx, block);
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
    if block.items.is_empty() {
        cx.error_at(
            proc_macro2::Span::call_site(),
            format!(
                "#[tools] found no `#[tool]`, `#[prompt]` or `#[resource]` method in this `impl` \
                 block: mark each method to serve with one of them (an attribute written by a \
                 `macro_rules!` inside the block is not seen: let the macro write the whole \
                 `#[tools] impl {self_ty}` block)"
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

/// Two tools (or two prompts) of one block under one name, or two resources at one URI, would
/// make `toolset()` fail at `build()`, and two items of one type name would be two items of that
/// name; both are known here, so they are errors here, at the second item.
fn check_distinct_items(cx: &Ctxt, block: &ToolImpl) {
    let mut names: HashMap<(Kind, String), &Item> = HashMap::new();
    let mut types: HashMap<String, &Item> = HashMap::new();
    for (_, item) in &block.items {
        let noun = item.kind.name();
        let (key, span) = match (&item.kind, &item.attrs.uri) {
            (Kind::Resource, Some(uri)) => (uri.value.clone(), uri.span),
            // Reported as missing by the resource's own checks.
            (Kind::Resource, None) => (String::new(), item.func.sig.ident.span()),
            _ => (
                item.wire_name(),
                item.attrs
                    .name
                    .as_ref()
                    .map_or_else(|| item.func.sig.ident.span(), |given| given.span),
            ),
        };
        let named = !(item.kind == Kind::Resource && key.is_empty());
        if let Some(first) = names.get(&(item.kind, key.clone())).filter(|_| named) {
            let message = match item.kind {
                Kind::Resource => format!(
                    "the URI `{key}` is already the resource of the method `{}` in this block, \
                     and a client reads a resource by its URI: give one of them another `uri`",
                    first.func.sig.ident
                ),
                _ => format!(
                    "the {noun} `{key}` is already in this block (the method `{}`), and a tool \
                     set needs distinct names: rename one with #[{noun}(name = \"…\")]",
                    first.func.sig.ident
                ),
            };
            cx.error_at(span, message);
        } else {
            names.insert((item.kind, key), item);
        }
        let type_ident = item.type_ident();
        if let Some(first) = types.get(&type_ident.to_string()) {
            let whose = if first.kind == item.kind {
                format!(
                    "the {noun}s of the methods `{}` and `{}`",
                    first.func.sig.ident, item.func.sig.ident
                )
            } else {
                format!(
                    "the {} of the method `{}` and the {noun} of the method `{}`",
                    first.kind.name(),
                    first.func.sig.ident,
                    item.func.sig.ident
                )
            };
            cx.error_spanned_by(
                &type_ident,
                format!(
                    "{whose} would both have the type `{type_ident}`: give one another \
                     #[{noun}(type_name = \"…\")]"
                ),
            );
        } else {
            types.insert(type_ident.to_string(), item);
        }
    }
}

fn check_signature(cx: &Ctxt, item: &Item) {
    let sig = &item.func.sig;
    check_receiver(cx, item);
    if !sig.generics.params.is_empty() {
        let message = match item.kind {
            Kind::Tool => {
                "a tool cannot be generic: its argument schema is fixed when the tool \
                           is listed; use concrete types"
            }
            Kind::Prompt => {
                "a prompt cannot be generic: its arguments are fixed when it is \
                             listed, and each is read from a string into one type; use concrete \
                             types"
            }
            Kind::Resource => {
                "a resource cannot be generic: its variables are read from the URI \
                               into one type each; use concrete types"
            }
        };
        cx.error_spanned_by(&sig.generics, message);
    }
    // A prompt's or a resource's value is only converted (`IntoPromptReply`…), which an
    // `impl Trait` allows; a tool's output schema is derived from the named type.
    if let ReturnType::Type(_, ty) = &sig.output
        && let Type::ImplTrait(_) = &**ty
        && item.kind == Kind::Tool
    {
        cx.error_spanned_by(
            ty,
            "a tool cannot return `impl Trait`: name the type, so that its output schema \
                 can be derived (for example `-> Forecast` or `-> Result<Forecast, Error>`)",
        );
    }
}

/// A method's item holds the value in an `Arc` shared by every call, and calls run
/// concurrently: the method can borrow the value (`&self`) or take a clone of the `Arc`, nothing
/// else. A function with a receiver under `#[tool]` alone is a method whose block lacks `#[tools]`.
fn check_receiver(cx: &Ctxt, item: &Item) {
    let noun = item.kind.name();
    let Some(method) = &item.method else {
        if item.func.sig.receiver().is_some() {
            // Spanned at the attribute: what is missing goes beside it, on the `impl` block.
            cx.error_at(
                proc_macro2::Span::call_site(),
                format!(
                    "this method's `impl` block needs `#[tools]`: a `#[{noun}]` method is a \
                     {noun} of the value its block is for, and `#[tools]` makes them (put \
                     `#[tools]`, from `tooldef`, above the `impl`; then serve the value with \
                     `Arc::new(value).toolset()`)"
                ),
            );
        }
        return;
    };
    let ReceiverKind::Refused(receiver) = &method.receiver else {
        return;
    };
    let (every, they) = match item.kind {
        Kind::Tool => ("every tool of the block", "the tools"),
        _ => (
            "every tool, prompt and resource of the block",
            "the block's tools, prompts and resources",
        ),
    };
    let message = match &*receiver.ty {
        Type::Reference(reference) if reference.mutability.is_some() => format!(
            "a {noun} method cannot take `&mut self`: {every} shares one value and calls run \
             concurrently, so no call can have it to itself; take `&self` and keep what changes \
             behind interior mutability (an atomic, a `Mutex` or an `RwLock` field)"
        ),
        ty if ast::is_self(ty) => format!(
            "a {noun} method cannot take `self` by value: every call uses the one value {they} \
             share (in an `Arc`), so none can consume it; take `&self`, or `self: Arc<Self>` to \
             keep it beyond the call (to spawn a task, say)"
        ),
        Type::Path(path) if ast::pointer_to_self(&path.path, "Box") => format!(
            "a {noun} method cannot take `self: Box<Self>`: {they} share the value in an `Arc`, \
             which cannot become a `Box`; take `&self`, or `self: Arc<Self>`"
        ),
        ty => format!(
            "a {noun} method takes `&self` or `self: Arc<Self>`: {they} share the value in an \
             `Arc`, and `{}` cannot be made from one",
            ast::as_written(ty)
        ),
    };
    cx.error_spanned_by(receiver, message);
}

fn check_name(cx: &Ctxt, tool: &Item) {
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

fn check_description(cx: &Ctxt, tool: &Item) {
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

fn check_params(cx: &Ctxt, item: &Item) {
    let mut read_names: HashMap<String, (&Param, NameSource)> = HashMap::new();
    let whole: Vec<&Param> = item
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::WholeStruct(_)))
        .collect();
    if !whole.is_empty() && item.kind == Kind::Tool {
        // Context parameters are not arguments: they go with the whole struct as with fields.
        for param in item.params.iter().filter(|p| {
            !matches!(
                p.kind,
                ParamKind::WholeStruct(_) | ParamKind::Context | ParamKind::ResourceUri
            )
        }) {
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

    let noun = item.kind.name();
    for param in &item.params {
        if let Type::ImplTrait(_) = &param.ty {
            let why = match item.kind {
                Kind::Tool => "its schema is generated from a concrete type",
                Kind::Prompt | Kind::Resource => {
                    "it is read from a string into a concrete type, with `FromStr`"
                }
            };
            cx.error_spanned_by(
                &param.ty,
                format!("a {noun} parameter cannot be `impl Trait`: {why}; name the type"),
            );
        }
        match &param.kind {
            ParamKind::Unsupported => {
                let message = match item.kind {
                    Kind::Tool => "a tool parameter must be a plain name (`city: String`), or \
                                   the whole-struct form (`Args(args): Args<SearchArgs>`); \
                                   destructure inside the function"
                        .to_owned(),
                    _ => format!(
                        "a {noun} parameter must be a plain name (`city: String`): its name is \
                         the name of the {}; destructure inside the function",
                        argument_word(item.kind)
                    ),
                };
                cx.error_spanned_by(&param.pat, message);
            }
            ParamKind::WholeStruct(inner) if item.kind != Kind::Tool => cx.error_spanned_by(
                &param.ty,
                format!(
                    "`Args<T>` is a tool's whole argument object, read from JSON; a {noun} \
                     takes each {} as a parameter of its own, read from a string: take the \
                     fields of `{}` as parameters",
                    argument_word(item.kind),
                    ast::as_written(inner)
                ),
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
                check_no_completion(cx, param);
            }
            ParamKind::Field(_) => {
                if item.kind == Kind::Tool {
                    check_argument_type(cx, &param.ty);
                    check_no_completion(cx, param);
                }
                check_option_default(cx, item.kind, param);
            }
            ParamKind::Context => check_context_param(cx, item.kind, param, "a context parameter"),
            ParamKind::ResourceUri if item.kind == Kind::Resource => {
                check_context_param(cx, item.kind, param, "the `ResourceUri` parameter");
            }
            ParamKind::ResourceUri => cx.error_spanned_by(
                &param.ty,
                format!(
                    "`ResourceUri` is the URI a resource is read at, given only to a \
                     #[resource] function; a {noun} is not read at a URI: remove this parameter"
                ),
            ),
        }
        if let (Some(_), Some(described)) = (&param.doc, &param.arg.description) {
            cx.error_at(
                described.span,
                "this parameter has both a `///` doc comment and #[arg(description = …)]: \
                 keep one",
            );
        }
        check_names(cx, item.kind, param, &mut read_names);
    }
}

/// What the parameters of a tool, a prompt or a resource are, in messages.
pub(crate) fn argument_word(kind: Kind) -> &'static str {
    match kind {
        Kind::Tool | Kind::Prompt => "argument",
        Kind::Resource => "template variable",
    }
}

/// `#[arg(complete)]` on a tool's parameter: the model writes a tool's arguments, and MCP's
/// completion is for what a user types into a prompt's argument or a template's variable.
fn check_no_completion(cx: &Ctxt, param: &Param) {
    if let Some(complete) = &param.arg.complete {
        cx.error_at(
            complete.span,
            "`complete` names the function that completes a prompt's argument or a resource \
             template's variable as a user types it (MCP `completion/complete`); a tool's \
             arguments are written by the model, which completion does not serve: remove it",
        );
    }
}

/// The names serde reads arguments under must be distinct across parameters: with two
/// parameters under one name (renamed by `#[arg]` or by a forwarded `#[serde]`, or through a
/// `#[serde(alias)]`), the schema would require the name twice and serde would fill only one of
/// them, so every call would fail.
fn check_names<'p>(
    cx: &Ctxt,
    kind: Kind,
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
        let fix = distinct_names_advice((first, first_source), (param, source));
        let message = if matches!(source, NameSource::Alias(_))
            || matches!(first_source, NameSource::Alias(_))
        {
            format!(
                "{both} would both be read from the argument `{name}`: serde would fill only one \
                 of them; {fix}"
            )
        } else {
            let (what, once) = match kind {
                Kind::Tool => ("argument", "the model can send it only once"),
                Kind::Prompt => ("argument", "a client can send it only once"),
                Kind::Resource => ("template variable", "a URI holds it only once"),
            };
            format!(
                "{both} would both be the {what} `{name}`: {once}, so \
                 one of them could never be filled; {fix}"
            )
        };
        cx.error_at(span, message);
    }
}

/// What to change so that two parameters are read under distinct names, for each the attribute
/// that gave it the name: a parameter already renamed has its rename changed, as a second one
/// would be refused ("renamed twice"); only one under its own name is given `#[arg(rename)]`; an
/// alias is changed or removed, as renaming its parameter would leave the alias in place.
fn distinct_names_advice(first: (&Param, NameSource), second: (&Param, NameSource)) -> String {
    let change = |source: NameSource| match source {
        NameSource::Own => None,
        NameSource::ArgRename(_) => Some("change the #[arg(rename)]"),
        NameSource::SerdeRename(_) => Some("change the #[serde(rename)]"),
        NameSource::Alias(_) => Some("change or remove the #[serde(alias)]"),
    };
    let clause = |(param, source): (&Param, NameSource)| match change(source) {
        Some(change) => format!("{change} of `{}`", pat_name(param)),
        None => format!(
            "give `{}` another name with #[arg(rename = \"…\")]",
            pat_name(param)
        ),
    };
    match (change(first.1), change(second.1)) {
        (Some(a), Some(b)) if a == b => format!(
            "{a} of `{}` or of `{}`",
            pat_name(first.0),
            pat_name(second.0)
        ),
        _ => format!("{}, or {}", clause(first), clause(second)),
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
/// default would apply whenever the model sends nothing, and `None` could never be chosen. A
/// default written as a plain value (`default = 10`), which could only be meant as `Some(10)`,
/// is refused the same way: the expansion would hand it to rustc as an `Option`, whose
/// "try wrapping the expression in `Some`" would come first and lead to this error.
fn check_option_default(cx: &Ctxt, kind: Kind, param: &Param) {
    let Some(Some(expr)) = param.arg.default.as_ref().map(|d| &d.value) else {
        return;
    };
    let Some(inner_ty) = option_inner(&param.ty) else {
        return;
    };
    let (inner_expr, given) = match some_argument(expr) {
        Some(inner) => (inner, "`Some(…)`".to_owned()),
        None if never_an_option(expr) => (expr, format!("`{}`", crate::ast::as_written(expr))),
        None => return,
    };
    let name = pat_name(param);
    let inner_ty = crate::ast::as_written(inner_ty);
    let inner_expr = crate::ast::as_written(inner_expr);
    let why = match kind {
        Kind::Tool => {
            "tooldef reads a `null` argument as absent, so this default would apply whenever the \
             model sends no value"
        }
        Kind::Prompt => "this default would apply whenever the client leaves the argument out",
        Kind::Resource => "this default would apply whenever the URI leaves the variable out",
    };
    cx.error_spanned_by(
        expr,
        format!(
            "a default of {given} makes `None` unreachable: {why}; take `{name}: {inner_ty}` \
             with #[arg(default = {inner_expr})], or drop the default so that an absent \
             argument is `None`"
        ),
    );
}

/// An expression whose syntax says it is not an `Option`: a literal (`10`, `-1`, `"x"`), an
/// array, a tuple or a struct literal. A path or a call (`None`, `DEFAULT`, `f()`) may be one.
fn never_an_option(expr: &Expr) -> bool {
    match expr {
        Expr::Group(group) => never_an_option(&group.expr),
        Expr::Paren(paren) => never_an_option(&paren.expr),
        Expr::Unary(unary) => {
            matches!(unary.op, syn::UnOp::Neg(_)) && matches!(&*unary.expr, Expr::Lit(_))
        }
        Expr::Lit(_) | Expr::Array(_) | Expr::Repeat(_) | Expr::Tuple(_) | Expr::Struct(_) => true,
        _ => false,
    }
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
pub(crate) fn some_argument(expr: &Expr) -> Option<&Expr> {
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
fn check_context_param(cx: &Ctxt, kind: Kind, param: &Param, what: &str) {
    let (from, shown) = match kind {
        Kind::Tool => (
            "the model's arguments, and is not part of the schema",
            "is not shown to the model",
        ),
        Kind::Prompt => (
            "the prompt's arguments, and is not one of them",
            "is not shown to the client",
        ),
        Kind::Resource => (
            "the URI's variables, and is not one of them",
            "is not shown to the client",
        ),
    };
    let filled = if what == "a context parameter" {
        "it is filled from the call's context (`CallContext`)"
    } else {
        "it is filled with the URI read"
    };
    for (span, key) in [
        (param.arg.default.as_ref().map(|d| d.span), "default"),
        (param.arg.rename.as_ref().map(|r| r.span), "rename"),
        (
            param.arg.description.as_ref().map(|d| d.span),
            "description",
        ),
        (param.arg.deprecated.as_ref().map(|d| d.span), "deprecated"),
        (param.arg.header.as_ref().map(|h| h.span), "header"),
        (param.arg.complete.as_ref().map(|c| c.span), "complete"),
    ] {
        if let Some(span) = span {
            cx.error_at(
                span,
                format!("`{key}` does not apply to {what}: {filled}, not from {from}"),
            );
        }
    }
    if let Some(doc_span) = param.doc_span {
        cx.error_at(
            doc_span,
            format!("{what} {shown}, so its doc comment would go nowhere: use a `//` comment"),
        );
    }
    for attr in &param.forwarded {
        let message = match kind {
            Kind::Tool => "a context parameter is not part of the schema, so schemars and serde \
                           attributes have no effect on it: remove this attribute"
                .to_owned(),
            _ => format!(
                "{what} is not read from the {}s, so this attribute has no effect on it: \
                 remove it",
                argument_word(kind)
            ),
        };
        cx.error_spanned_by(attr, message);
    }
}

/// Every entry of the `# Arguments` section must name a parameter, and a parameter is documented
/// in one place only: a doc that names nothing would otherwise be silently lost.
fn check_argument_docs(cx: &Ctxt, tool: &Item) {
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
