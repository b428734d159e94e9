//! The parsed item: a function, its `#[tool]`, `#[prompt]` or `#[resource]` attributes, docs and
//! parameters. The three share this shape, so that docs, parameters, context and methods are
//! read in one place whatever the function is made into.

use heck::ToUpperCamelCase;
use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, ImplItem, ImplItemFn, ItemFn, ItemImpl, Meta, Pat,
    Path, PathArguments, ReturnType, Type, TypePath,
};

use crate::attr::{ArgAttrs, ItemAttrs, Kind, SerdeNames, ToolsAttrs};
use crate::ctxt::Ctxt;
use crate::docs::{self, FunctionDocs};

/// A function under `#[tool]`, `#[prompt]` or `#[resource]`, or a method under one of them in a
/// `#[tools]` impl block.
pub struct Item {
    /// What the function is made into.
    pub kind: Kind,
    /// The function as the user wrote it, minus the parameter attributes only the macro reads.
    /// A method is held as a function too (its attributes, visibility, signature and body) and
    /// put back into its `impl` block by the expansion.
    pub func: ItemFn,
    pub attrs: ItemAttrs,
    pub docs: FunctionDocs,
    pub params: Vec<Param>,
    /// The function's return type, with `Self` spelled as the `impl` block's type for a method:
    /// the code generated from it is outside the block, where `Self` means something else.
    pub output: ReturnType,
    /// `Some` for a method of a `#[tools]` block: the one thing that differs from a function.
    pub method: Option<Method>,
}

/// What a tool generated from a method needs to know of its `#[tools]` impl block.
pub struct Method {
    /// The block's type, as written after `impl`.
    pub self_ty: Type,
    /// The last segment of its path, which names the tools' types: `Library` + `search` →
    /// `LibrarySearch`.
    pub self_ident: Ident,
    /// How the method takes the value the tools share.
    pub receiver: ReceiverKind,
    /// `default fn` (specialisation), put back on the method as it was.
    pub defaultness: Option<syn::token::Default>,
    /// The path of its `#[tool]` (or `#[prompt]`, `#[resource]`) attribute as written (`tool`,
    /// `tooldef::tool`), put back on the method marked as done: the macro then runs on it as on
    /// any method, so that its import is used (and missing, reported as rustc reports a missing
    /// attribute), and passes the method through.
    pub attribute: Path,
}

/// How a tool method takes the value its tool holds (an `Arc` of the block's type).
pub enum ReceiverKind {
    /// No `self`: an associated function, called as `Library::f(…)`; a tool like a free one.
    None,
    /// `&self`: each call borrows the shared value.
    Shared,
    /// `self: Arc<Self>`: each call gets its own clone of the `Arc`, to keep past the call.
    Arc,
    /// Anything else (`&mut self`, `self`, `self: Box<Self>`…), which validation refuses.
    Refused(syn::Receiver),
}

/// An `impl` block under `#[tools]`: its `#[tool]`, `#[prompt]` and `#[resource]` methods are
/// the tools, prompts and resources of one value.
pub struct ToolImpl {
    /// The block as written, with those attributes taken off its methods (the methods
    /// themselves are replaced by the items' functions on expansion).
    pub item: ItemImpl,
    pub attrs: ToolsAttrs,
    /// The name of the block's type, when it has one (validation reports when it has not).
    pub self_ident: Option<Ident>,
    /// Each `#[tool]`, `#[prompt]` and `#[resource]` method, with the index of its item in the
    /// block, in the block's order.
    pub items: Vec<(usize, Item)>,
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
    /// `ResourceUri`: the URI a resource is read at, given to a `#[resource]` function (and
    /// refused elsewhere).
    ResourceUri,
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

impl Item {
    /// Parses the function under `#[tool]`, `#[prompt]` or `#[resource]` (`kind`); problems go
    /// to `cx`. `None` when the item is not a function at all.
    pub fn from_tokens(
        cx: &Ctxt,
        kind: Kind,
        args: TokenStream,
        input: TokenStream,
    ) -> Option<Item> {
        let mut func: ItemFn = match syn::parse2(input) {
            Ok(func) => func,
            Err(err) => {
                ItemAttrs::parse(cx, kind, args);
                cx.syn_error(syn::Error::new(
                    err.span(),
                    format!("#[{}] goes on a function (`fn` or `async fn`)", kind.name()),
                ));
                return None;
            }
        };
        let args = take_repeated_attributes(kind, args, &mut func.attrs);
        let attrs = ItemAttrs::parse(cx, kind, args);
        Some(Item::from_fn(cx, kind, attrs, func, None))
    }

    /// Parses a method of a `#[tools]` block whose `#[tool(…)]` (or `#[prompt(…)]`,
    /// `#[resource(…)]`) said `args`: the function's path, with the block's type for `Self`.
    pub fn from_method(
        cx: &Ctxt,
        ItemAttribute { kind, path, args }: ItemAttribute,
        method: ImplItemFn,
        self_ty: &Type,
        self_ident: &Ident,
    ) -> Item {
        let attrs = ItemAttrs::parse(cx, kind, args);
        let receiver = match method.sig.receiver() {
            None => ReceiverKind::None,
            Some(receiver) => receiver_kind(receiver),
        };
        let func = ItemFn {
            attrs: method.attrs,
            vis: method.vis,
            sig: method.sig,
            block: Box::new(method.block),
        };
        let method = Method {
            self_ty: self_ty.clone(),
            self_ident: self_ident.clone(),
            receiver,
            defaultness: method.defaultness,
            attribute: path,
        };
        Item::from_fn(cx, kind, attrs, func, Some(method))
    }

    fn from_fn(
        cx: &Ctxt,
        kind: Kind,
        mut attrs: ItemAttrs,
        mut func: ItemFn,
        method: Option<Method>,
    ) -> Item {
        // An example's values are built beside the tool's type, outside the block.
        if let Some(method) = &method {
            for entry in attrs.examples.iter_mut().flat_map(|e| &mut e.entries) {
                entry.value = without_self(entry.value.clone(), &method.self_ty);
            }
        }
        // MCP describes a resource template as a whole, so a resource's doc comment is its
        // description as written, `# Arguments` and all; a tool's and a prompt's arguments are
        // described one by one.
        let docs = docs::doc_text(&func.attrs)
            .map(|text| match kind {
                Kind::Resource => FunctionDocs {
                    description: Some(text),
                    arguments: Vec::new(),
                },
                Kind::Tool | Kind::Prompt => docs::split_function_docs(&text),
            })
            .unwrap_or_default();
        // What is moved out of an `impl` block must not say `Self`; a function has none.
        let outside = |node: Type| match &method {
            Some(method) => without_self(node, &method.self_ty),
            None => node,
        };
        let output = match &func.sig.output {
            ReturnType::Default => ReturnType::Default,
            ReturnType::Type(arrow, ty) => {
                ReturnType::Type(*arrow, Box::new(outside((**ty).clone())))
            }
        };

        let mut params = Vec::new();
        for input in &mut func.sig.inputs {
            // A receiver is reported by validation; it has nothing to parse.
            let FnArg::Typed(typed) = input else { continue };
            let mut arg = ArgAttrs::parse(cx, &typed.attrs);
            if let Some(method) = &method {
                if let Some(Some(expr)) = arg.default.as_mut().map(|default| &mut default.value) {
                    *expr = without_self(expr.clone(), &method.self_ty);
                }
                if let Some(complete) = &mut arg.complete {
                    complete.value = without_self(complete.value.clone(), &method.self_ty);
                }
            }
            let ty = outside((*typed.ty).clone());
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
            let kind = match (&*typed.pat, whole_struct_inner(&ty)) {
                _ if marked_context || is_context_type(&ty) => ParamKind::Context,
                _ if is_resource_uri(&ty) => ParamKind::ResourceUri,
                (_, Some(inner)) => ParamKind::WholeStruct(inner.clone()),
                (Pat::Ident(pat), None) if pat.subpat.is_none() => {
                    ParamKind::Field(pat.ident.clone())
                }
                _ => ParamKind::Unsupported,
            };
            params.push(Param {
                pat: (*typed.pat).clone(),
                ty,
                kind,
                arg,
                doc,
                doc_span,
                forwarded,
                serde,
            });
        }
        Item {
            kind,
            func,
            attrs,
            docs,
            params,
            output,
            method,
        }
    }

    /// The name on the wire (a tool's, a prompt's or a resource's): `#[tool(name = …)]`, else
    /// the function's name.
    pub fn wire_name(&self) -> String {
        match &self.attrs.name {
            Some(name) => name.value.clone(),
            None => unraw(&self.func.sig.ident),
        }
    }

    /// The generated Rust type; see [`type_ident`].
    pub fn type_ident(&self) -> Ident {
        type_ident(
            &self.attrs,
            &self.func.sig.ident,
            self.method.as_ref().map(|method| &method.self_ident),
        )
    }
}

/// The generated Rust type (of a tool, a prompt or a resource): `#[tool(type_name = …)]`, else
/// the function's name in UpperCamelCase (`get_weather` → `GetWeather`), after its block's type
/// for a method (`search` in `impl Library` → `LibrarySearch`, so that two blocks' `search`
/// tools do not share a name).
pub fn type_ident(attrs: &ItemAttrs, fn_ident: &Ident, self_ident: Option<&Ident>) -> Ident {
    if let Some(ident) = &attrs.type_name {
        return ident.clone();
    }
    let name = unraw(fn_ident).to_upper_camel_case();
    match self_ident {
        None => Ident::new(&name, fn_ident.span()),
        Some(owner) => Ident::new(&format!("{}{name}", unraw(owner)), fn_ident.span()),
    }
}

impl ToolImpl {
    /// Parses the `impl` block and each of its `#[tool]` methods; problems go to `cx`. `None`
    /// when the item is not an `impl` block.
    pub fn from_tokens(cx: &Ctxt, args: TokenStream, input: TokenStream) -> Option<ToolImpl> {
        let attrs = ToolsAttrs::parse(cx, args);
        let mut item: ItemImpl = match syn::parse2(input) {
            Ok(item) => item,
            Err(_) => {
                cx.error_at(
                    Span::call_site(),
                    "#[tools] goes on an `impl` block whose `#[tool]` methods are the tools \
                     (and `#[prompt]`, `#[resource]` methods its prompts and resources): \
                     `#[tools] impl MyServer { … }`",
                );
                return None;
            }
        };
        let self_ident = match &*item.self_ty {
            Type::Path(path) if path.qself.is_none() => {
                path.path.segments.last().map(|last| last.ident.clone())
            }
            _ => None,
        };
        // A stand-in for a type validation refuses, so that the methods are checked all the same.
        let name = self_ident
            .clone()
            .unwrap_or_else(|| Ident::new("Tools", item.self_ty.span()));
        let mut items = Vec::new();
        for (index, impl_item) in item.items.iter_mut().enumerate() {
            let ImplItem::Fn(method) = impl_item else {
                continue;
            };
            let Some(attribute) =
                take_item_attribute(cx, &mut method.attrs, attrs.crate_path.as_ref())
            else {
                continue;
            };
            let mut parsed = Item::from_method(cx, attribute, method.clone(), &item.self_ty, &name);
            if parsed.attrs.crate_path.is_none() {
                parsed.attrs.crate_path.clone_from(&attrs.crate_path);
            }
            items.push((index, parsed));
        }
        Some(ToolImpl {
            item,
            attrs,
            self_ident,
            items,
        })
    }
}

/// The `#[tool]`, `#[prompt]` or `#[resource]` attribute of a method of a `#[tools]` block.
pub struct ItemAttribute {
    pub kind: Kind,
    /// Its path as written (`tool`, `tooldef::prompt`).
    pub path: Path,
    /// What it says, inside its parentheses.
    pub args: TokenStream,
}

/// Takes the `#[tool]`, `#[prompt]` or `#[resource]` attribute off a method of a `#[tools]`
/// block; `None` when the method has none. `#[tool]`, `#[tooldef::tool]` and `#[<crate>::tool]`
/// are recognised, and not `#[rmcp::tool]`: a server being moved over from rmcp may still have
/// those.
fn take_item_attribute(
    cx: &Ctxt,
    attrs: &mut Vec<Attribute>,
    krate: Option<&Path>,
) -> Option<ItemAttribute> {
    let mut found: Option<ItemAttribute> = None;
    let mut kept = Vec::with_capacity(attrs.len());
    for attr in attrs.drain(..) {
        let Some(kind) = item_attribute_kind(attr.path(), krate) else {
            kept.push(attr);
            continue;
        };
        let args = match &attr.meta {
            Meta::Path(_) => TokenStream::new(),
            Meta::List(list) => list.tokens.clone(),
            Meta::NameValue(_) => {
                cx.error_spanned_by(
                    &attr,
                    format!(
                        "#[{0}] takes its settings in parentheses: `#[{0}(name = \"…\")]`",
                        kind.name()
                    ),
                );
                TokenStream::new()
            }
        };
        match &mut found {
            // `#[tool(example(…))] #[tool(example(…))]`: one attribute, written over several.
            Some(first) if first.kind == kind => first.args = joined(&first.args, args),
            Some(first) => cx.error_spanned_by(
                &attr,
                format!(
                    "this method is already a {0} (`#[{0}]`), and a method is one tool, prompt \
                     or resource: keep one attribute, and write another method that calls this \
                     one for the other",
                    first.kind.name()
                ),
            ),
            None => {
                found = Some(ItemAttribute {
                    kind,
                    path: attr.path().clone(),
                    args,
                });
            }
        }
    }
    *attrs = kept;
    found
}

/// The attribute's own `args` and those of the further `#[tool(…)]` attributes of the same
/// kind on the function, taken off it: several attributes are one, written over several (for
/// `example(…)`s one a line), and the macro must not run again on what it gives back.
pub fn take_repeated_attributes(
    kind: Kind,
    args: TokenStream,
    attrs: &mut Vec<Attribute>,
) -> TokenStream {
    // Where `crate = "…"` renames tooldef, its path names the attribute too.
    let krate = ItemAttrs::parse(&Ctxt::default(), kind, args.clone()).crate_path;
    let mut args = args;
    attrs.retain(|attr| {
        if item_attribute_kind(attr.path(), krate.as_ref()) != Some(kind) {
            return true;
        }
        match &attr.meta {
            Meta::Path(_) => false,
            Meta::List(list) => {
                args = joined(&args, list.tokens.clone());
                false
            }
            // `#[tool = …]` is left for the macro to refuse when it runs on it.
            Meta::NameValue(_) => true,
        }
    });
    args
}

/// The keys of two attributes as one list.
fn joined(first: &TokenStream, more: TokenStream) -> TokenStream {
    match (first.is_empty(), more.is_empty()) {
        (_, true) => first.clone(),
        (true, false) => more,
        (false, false) => quote::quote!(#first, #more),
    }
}

/// Which of tooldef's attributes `path` names: `tool`, `prompt` or `resource`, alone or after
/// `tooldef::` (or the renamed crate's path).
fn item_attribute_kind(path: &Path, krate: Option<&Path>) -> Option<Kind> {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (last, prefix) = names.split_last()?;
    let kind = Kind::ALL.into_iter().find(|kind| kind.name() == last)?;
    let ours = if prefix.is_empty() {
        path.leading_colon.is_none()
    } else {
        match krate {
            Some(krate) => krate
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .eq(prefix.iter().cloned()),
            None => prefix == ["tooldef"],
        }
    };
    ours.then_some(kind)
}

/// Removes from a signature's parameters the attributes only the macro reads (see
/// [`strip_param_attributes`]).
pub fn strip_signature_attributes(sig: &mut syn::Signature) {
    for input in &mut sig.inputs {
        if let FnArg::Typed(typed) = input {
            typed.attrs.retain(|a| !is_taken(a));
        }
    }
}

fn receiver_kind(receiver: &syn::Receiver) -> ReceiverKind {
    match &*receiver.ty {
        Type::Reference(reference)
            if reference.mutability.is_none() && is_self(&reference.elem) =>
        {
            ReceiverKind::Shared
        }
        Type::Path(path) if path.qself.is_none() && pointer_to_self(&path.path, "Arc") => {
            ReceiverKind::Arc
        }
        _ => ReceiverKind::Refused(receiver.clone()),
    }
}

/// `Self`.
pub fn is_self(ty: &Type) -> bool {
    matches!(ty, Type::Path(TypePath { qself: None, path }) if path.is_ident("Self"))
}

/// `Arc<Self>` (any path ending in `pointer`, with `Self` for its one argument).
pub fn pointer_to_self(path: &Path, pointer: &str) -> bool {
    let Some(last) = path.segments.last() else {
        return false;
    };
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    last.ident == pointer
        && matches!(
            args.args.iter().collect::<Vec<_>>().as_slice(),
            [GenericArgument::Type(inner)] if is_self(inner)
        )
}

/// Spells `Self` as the `impl` block's type in a type or an expression taken out of the block
/// (an argument's type, its default, the return type): `Self` → `Library`, `Self::MAX` →
/// `<Library>::MAX`, inside macro calls too. The type's tokens are spanned where `Self` was
/// written, so that errors about them still point there.
fn replace_self(tokens: TokenStream, self_ty: &Type) -> TokenStream {
    let mut out = TokenStream::new();
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Ident(ident) if ident == "Self" => {
                let ty = crate::families::respan(self_ty.to_token_stream(), ident.span());
                let path_follows =
                    matches!(tokens.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                if path_follows {
                    out.extend(quote_spanned!(ident.span()=> <#ty>));
                } else {
                    out.extend(ty);
                }
            }
            TokenTree::Group(group) => {
                let mut replaced =
                    Group::new(group.delimiter(), replace_self(group.stream(), self_ty));
                replaced.set_span(group.span());
                out.extend([TokenTree::Group(replaced)]);
            }
            other => out.extend([other]),
        }
    }
    out
}

/// [`replace_self`] on a syntax node, which is left as it is if the result does not parse.
fn without_self<T: ToTokens + syn::parse::Parse>(node: T, self_ty: &Type) -> T {
    syn::parse2(replace_self(node.to_token_stream(), self_ty)).unwrap_or(node)
}

#[cfg(test)]
mod method_tests {
    use super::*;

    fn replaced(tokens: TokenStream) -> String {
        let library: Type = syn::parse_quote!(Library);
        replace_self(tokens, &library).to_string().replace(' ', "")
    }

    #[test]
    fn self_is_spelled_as_the_block_type() {
        assert_eq!(replaced(quote::quote!(Vec<Self>)), "Vec<Library>");
        assert_eq!(replaced(quote::quote!(Self::DEFAULT)), "<Library>::DEFAULT");
        assert_eq!(
            replaced(quote::quote!(vec![Self::first(), 2])),
            "vec![<Library>::first(),2]"
        );
        assert_eq!(replaced(quote::quote!(SelfTest)), "SelfTest");
    }

    #[test]
    fn prompts_and_resources_are_taken_too() {
        let prompt: Path = syn::parse_quote!(tooldef::prompt);
        assert_eq!(item_attribute_kind(&prompt, None), Some(Kind::Prompt));
        let resource: Path = syn::parse_quote!(resource);
        assert_eq!(item_attribute_kind(&resource, None), Some(Kind::Resource));
        let rmcp: Path = syn::parse_quote!(rmcp::prompt);
        assert_eq!(item_attribute_kind(&rmcp, None), None);
    }

    #[test]
    fn only_tooldefs_tool_attribute_is_taken() {
        let tooldef: Path = syn::parse_quote!(td);
        for (path, krate, taken) in [
            (syn::parse_quote!(tool), None, true),
            (syn::parse_quote!(tooldef::tool), None, true),
            (syn::parse_quote!(::tooldef::tool), None, true),
            (syn::parse_quote!(rmcp::tool), None, false),
            (syn::parse_quote!(tools), None, false),
            (syn::parse_quote!(td::tool), Some(&tooldef), true),
            (syn::parse_quote!(tooldef::tool), Some(&tooldef), false),
        ] {
            let path: Path = path;
            assert_eq!(
                item_attribute_kind(&path, krate) == Some(Kind::Tool),
                taken,
                "{}",
                path.to_token_stream()
            );
        }
    }

    #[test]
    fn receivers() {
        let kind = |method: ImplItemFn| match receiver_kind(method.sig.receiver().unwrap()) {
            ReceiverKind::None => "none",
            ReceiverKind::Shared => "shared",
            ReceiverKind::Arc => "arc",
            ReceiverKind::Refused(_) => "refused",
        };
        assert_eq!(
            kind(syn::parse_quote!(
                fn f(&self) {}
            )),
            "shared"
        );
        assert_eq!(
            kind(syn::parse_quote!(
                fn f(self: &Self) {}
            )),
            "shared"
        );
        assert_eq!(
            kind(syn::parse_quote!(
                fn f(self: std::sync::Arc<Self>) {}
            )),
            "arc"
        );
        assert_eq!(
            kind(syn::parse_quote!(
                fn f(&mut self) {}
            )),
            "refused"
        );
        assert_eq!(
            kind(syn::parse_quote!(
                fn f(self) {}
            )),
            "refused"
        );
        assert_eq!(
            kind(syn::parse_quote!(
                fn f(self: Box<Self>) {}
            )),
            "refused"
        );
        assert_eq!(
            kind(syn::parse_quote!(
                fn f(self: &Arc<Self>) {}
            )),
            "refused"
        );
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

/// `State<T>`, `CallContext`, `CancellationToken`, `Progress`, `ClientLog`, `Elicit` and `Sample` are context without
/// being marked (as axum's extractors are known by their types).
fn is_context_type(ty: &Type) -> bool {
    /// tooldef's own context types that take no type arguments.
    const PLAIN: &[&str] = &[
        "CallContext",
        "CancellationToken",
        "Progress",
        "ClientLog",
        "Elicit",
        "Sample",
    ];
    let Type::Path(path) = ty else { return false };
    path.path.segments.last().is_some_and(|last| {
        (last.ident == "State" && matches!(last.arguments, PathArguments::AngleBracketed(_)))
            || (PLAIN.iter().any(|name| last.ident == name) && last.arguments.is_none())
    })
}

/// `ResourceUri` (any path ending in it, without arguments): the URI a resource is read at.
fn is_resource_uri(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    path.path
        .segments
        .last()
        .is_some_and(|last| last.ident == "ResourceUri" && last.arguments.is_none())
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
            strip_signature_attributes(&mut func.sig);
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
