//! The attribute grammar: `#[tool(…)]`, `#[prompt(…)]` or `#[resource(…)]` on the function, and
//! `#[arg(…)]` on its parameters.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::{Expr, LitBool, LitStr, Path};

use crate::ctxt::Ctxt;
use crate::json::{Json, Key};

/// A value given in an attribute, with the span of its key for error messages.
#[derive(Clone)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// `#[tool(…)]`, `#[prompt(…)]` or `#[resource(…)]`: one grammar, in which each key is
/// accepted by the attributes it applies to (see [`Kind::keys`]) and refused by the others.
#[derive(Default)]
pub struct ItemAttrs {
    pub name: Option<Spanned<String>>,
    pub title: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub strict: Option<Spanned<bool>>,
    /// `output_schema = false`: no output schema and no structured content, text only.
    pub no_output_schema: bool,
    pub crate_path: Option<Path>,
    pub type_name: Option<syn::Ident>,
    /// `icon = "…"` and `icon(…)`, in the order given (MCP `icons`).
    pub icons: Vec<Icon>,
    /// The entries of every `meta(…)`, in the order given (MCP `_meta`).
    pub meta: Vec<MetaEntry>,
    /// `task` (alone: true), `task = true|false`: the tool may run as an MCP task.
    pub task: Option<bool>,
    /// A resource's `uri = "docs://readme"`, or its template, `uri = "users://{id}"`.
    pub uri: Option<Spanned<String>>,
    /// A resource's `mime_type = "text/markdown"`.
    pub mime_type: Option<Spanned<String>>,
    /// A resource's `size = 1024`, in bytes.
    pub size: Option<Spanned<u64>>,
    /// A resource's `annotations(audience = ["user"], priority = 0.5, last_modified = "…")`.
    pub annotations: Option<Annotations>,
    /// Each `example(city = "Paris", days = 3)`, in the order given: example arguments, named
    /// by the parameters' Rust names, each value a Rust expression of the parameter's type.
    pub examples: Vec<Example>,
    /// `defer_loading` (alone: true), `defer_loading = true|false`: the tool is loaded only when
    /// the model searches for it (Responses, Anthropic).
    pub defer_loading: Option<bool>,
}

/// One `example(key = value, …)` of `#[tool(…)]`.
pub struct Example {
    /// `example(…)` as written, for errors about the example as a whole.
    pub tokens: TokenStream,
    pub entries: Vec<ExampleEntry>,
}

/// `days = 3` in `example(…)`: a parameter's Rust name and a Rust expression of its type.
pub struct ExampleEntry {
    pub key: syn::Ident,
    pub value: Expr,
}

impl syn::parse::Parse for ExampleEntry {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<ExampleEntry> {
        // `type = "x"` names a parameter `r#type`: a key is a name, keywords included.
        let key = <syn::Ident as syn::ext::IdentExt>::parse_any(input).map_err(|e| {
            syn::Error::new(
                e.span(),
                "each argument of an example is a parameter's name, `=` and a value: \
                 `example(city = \"Paris\", days = 3)`",
            )
        })?;
        if !input.peek(syn::Token![=]) {
            return Err(syn::Error::new(
                key.span(),
                format!(
                    "`{key}` needs a value in an example: `{key} = …`, a Rust expression of the \
                     parameter's type"
                ),
            ));
        }
        input.parse::<syn::Token![=]>()?;
        Ok(ExampleEntry {
            key,
            value: input.parse()?,
        })
    }
}

/// What a `#[tool]`, `#[prompt]` or `#[resource]` makes of a function. Each has its keys in
/// the shared attribute grammar, and its words in the messages.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    /// The attribute's name: `tool`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
        }
    }

    /// The keys its attribute takes, as listed in messages.
    pub fn keys(self) -> &'static str {
        match self {
            Kind::Tool => TOOL_KEYS,
            Kind::Prompt => PROMPT_KEYS,
            Kind::Resource => RESOURCE_KEYS,
        }
    }

    /// Every kind, for the messages that say which attribute a key belongs to.
    pub const ALL: [Kind; 3] = [Kind::Tool, Kind::Prompt, Kind::Resource];
}

const TOOL_KEYS: &str = "name, title, description, read_only, destructive, idempotent, open_world, strict, output_schema, example, defer_loading, icon, meta, task, type_name, crate";
const PROMPT_KEYS: &str = "name, title, description, icon, meta, type_name, crate";
const RESOURCE_KEYS: &str =
    "uri, name, title, description, mime_type, size, annotations, icon, meta, type_name, crate";

/// `annotations(…)` of a resource: MCP's `Annotations`.
pub struct Annotations {
    /// `audience = ["user", "assistant"]` (or one, `audience = "user"`).
    pub audience: Option<Vec<Spanned<String>>>,
    /// `priority = 0.5`: the number as written, and its value.
    pub priority: Option<Spanned<(String, f64)>>,
    /// `last_modified = "2025-01-12T15:00:58Z"`: MCP's `lastModified`.
    pub last_modified: Option<Spanned<String>>,
    /// The `annotations` key, for an empty list.
    pub span: Span,
}

const ANNOTATION_KEYS: &str = "audience, priority, last_modified";

/// One `icon = "…"` or `icon(src = "…", mime_type = "…", sizes = "…", theme = "…")`.
pub struct Icon {
    pub src: Option<Spanned<String>>,
    pub mime_type: Option<Spanned<String>>,
    /// Space-separated, as HTML's `sizes`: `"48x48 96x96"`, `"any"`.
    pub sizes: Option<Spanned<String>>,
    pub theme: Option<Spanned<String>>,
    /// The `icon` key, for an icon without `src`.
    pub span: Span,
}

const ICON_KEYS: &str = "src, mime_type, sizes, theme";

/// `key = value` in `meta(…)`.
pub struct MetaEntry {
    pub key: Key,
    pub value: Json,
}

impl syn::parse::Parse for MetaEntry {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<MetaEntry> {
        let key: Key = input.parse()?;
        input.parse::<syn::Token![=]>()?;
        Ok(MetaEntry {
            key,
            value: input.parse()?,
        })
    }
}

impl ItemAttrs {
    /// Parses the tokens inside `#[tool(…)]` (or `#[prompt(…)]`, `#[resource(…)]`, as `kind`
    /// says); problems go to `cx`.
    pub fn parse(cx: &Ctxt, kind: Kind, tokens: TokenStream) -> ItemAttrs {
        let mut attrs = ItemAttrs::default();
        let parser = syn::meta::parser(|meta| {
            let key = meta.path.clone();
            let span = syn::spanned::Spanned::span(&key);
            let ident = key.get_ident().map(ToString::to_string).unwrap_or_default();
            let place = format!("#[{}(…)]", kind.name());
            if !kind.keys().split(", ").any(|known| known == ident) {
                skip_value(&meta)?;
                let mut message = unknown_key(&key, &place, kind.keys());
                let owners: Vec<String> = Kind::ALL
                    .iter()
                    .filter(|other| other.keys().split(", ").any(|known| known == ident))
                    .map(|other| format!("#[{}(…)]", other.name()))
                    .collect();
                if !owners.is_empty() {
                    message = format!(
                        "`{ident}` is a key of {}, not of {place}: the keys of {place} are: {}",
                        owners.join(" and "),
                        kind.keys()
                    );
                }
                cx.error_at(span, message);
                return Ok(());
            }
            match ident.as_str() {
                "name" => set_once(cx, &mut attrs.name, &meta, string_value(&meta)?),
                "title" => set_once(cx, &mut attrs.title, &meta, string_value(&meta)?),
                "description" => set_once(cx, &mut attrs.description, &meta, string_value(&meta)?),
                "read_only" => flag(cx, &mut attrs.read_only, &meta)?,
                "destructive" => flag(cx, &mut attrs.destructive, &meta)?,
                "idempotent" => flag(cx, &mut attrs.idempotent, &meta)?,
                "open_world" => flag(cx, &mut attrs.open_world, &meta)?,
                "strict" => {
                    let value = bool_value(&meta)?;
                    set_once(cx, &mut attrs.strict, &meta, Spanned { value, span });
                }
                "output_schema" => {
                    let lit: LitBool = meta.value()?.parse()?;
                    if lit.value {
                        cx.error_at(
                            lit.span(),
                            "`output_schema = true` is what a tool has without the key (a return \
                             type with a schema gives an output schema): drop the key, or write \
                             `output_schema = false` for a tool whose results are text only",
                        );
                    } else if std::mem::replace(&mut attrs.no_output_schema, true) {
                        duplicate(cx, &meta);
                    }
                }
                "type_name" => {
                    let lit: LitStr = meta.value()?.parse()?;
                    let ident = lit.parse::<syn::Ident>().map_err(|_| {
                        syn::Error::new(
                            lit.span(),
                            "`type_name` must be a Rust type name, e.g. \"UploadTool\"",
                        )
                    })?;
                    attrs.type_name = Some(ident);
                }
                "crate" => {
                    let lit: LitStr = meta.value()?.parse()?;
                    attrs.crate_path = Some(lit.parse()?);
                }
                "icon" => attrs.icons.push(icon(cx, &meta, span)?),
                "meta" if !meta.input.peek(syn::token::Paren) => {
                    // rmcp's `meta = expr`; its value need not be a Rust expression.
                    if meta.input.peek(syn::Token![=]) {
                        let rest = meta.value()?;
                        while !rest.is_empty() && !rest.peek(syn::Token![,]) {
                            rest.parse::<proc_macro2::TokenTree>()?;
                        }
                    }
                    cx.error_at(
                        span,
                        "`meta` takes its entries in parentheses: \
                         `meta(version = 2, \"com.example/tags\" = [\"a\", \"b\"])`",
                    );
                }
                "meta" => {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    let entries =
                        syn::punctuated::Punctuated::<MetaEntry, syn::Token![,]>::parse_terminated(
                            &content,
                        )?;
                    attrs.meta.extend(entries);
                }
                "task" => flag(cx, &mut attrs.task, &meta)?,
                "defer_loading" => flag(cx, &mut attrs.defer_loading, &meta)?,
                "example" => {
                    if !meta.input.peek(syn::token::Paren) {
                        skip_value(&meta)?;
                        cx.error_at(
                            span,
                            "`example` takes the arguments of one example in parentheses, each \
                             parameter by its Rust name with a value of its type: \
                             `example(city = \"Paris\", days = 3)`",
                        );
                        return Ok(());
                    }
                    let content;
                    let parens = syn::parenthesized!(content in meta.input);
                    let entries = syn::punctuated::Punctuated::<ExampleEntry, syn::Token![,]>::parse_terminated(&content)?;
                    // The key and its parentheses: an error about the whole example spans
                    // from `example` to the closing parenthesis.
                    let mut group = proc_macro2::Group::new(
                        proc_macro2::Delimiter::Parenthesis,
                        TokenStream::new(),
                    );
                    group.set_span(parens.span.join());
                    let tokens = quote::quote!(#key #group);
                    attrs.examples.push(Example {
                        tokens,
                        entries: entries.into_iter().collect(),
                    });
                }
                "uri" => set_once(cx, &mut attrs.uri, &meta, string_value(&meta)?),
                "mime_type" => set_once(cx, &mut attrs.mime_type, &meta, string_value(&meta)?),
                "size" => {
                    let lit: syn::LitInt = meta.value()?.parse()?;
                    let value = lit.base10_parse::<u64>().map_err(|_| {
                        syn::Error::new(
                            lit.span(),
                            "`size` is the resource's size in bytes: a whole number, such as \
                             `size = 1024`",
                        )
                    })?;
                    let size = Spanned {
                        value,
                        span: lit.span(),
                    };
                    set_once(cx, &mut attrs.size, &meta, size);
                }
                "annotations" => {
                    let parsed = annotations(cx, &meta, span)?;
                    set_once(cx, &mut attrs.annotations, &meta, parsed);
                }
                // Every key of `Kind::keys` is matched above.
                _ => unreachable!("the key `{ident}` is listed but not parsed"),
            }
            Ok(())
        });
        if let Err(err) = syn::parse::Parser::parse2(parser, tokens) {
            cx.syn_error(err);
        }
        attrs
    }
}

/// `#[tools(…)]` on an `impl` block.
#[derive(Default)]
pub struct ToolsAttrs {
    pub crate_path: Option<Path>,
}

const TOOLS_KEYS: &str = "crate";

impl ToolsAttrs {
    /// Parses the tokens inside `#[tools(…)]`; problems go to `cx`. Everything about one tool
    /// is said on its method, in `#[tool(…)]`.
    pub fn parse(cx: &Ctxt, tokens: TokenStream) -> ToolsAttrs {
        let mut attrs = ToolsAttrs::default();
        let parser = syn::meta::parser(|meta| {
            if meta.path.is_ident("crate") {
                let lit: LitStr = meta.value()?.parse()?;
                set_once(cx, &mut attrs.crate_path, &meta, lit.parse()?);
            } else {
                skip_value(&meta)?;
                let span = syn::spanned::Spanned::span(&meta.path);
                let mut message = unknown_key(&meta.path, "#[tools(…)]", TOOLS_KEYS);
                if let Some(kind) = Kind::ALL
                    .iter()
                    .find(|kind| kind.keys().split(", ").any(|key| meta.path.is_ident(key)))
                {
                    message.push_str(&format!(
                        "; a {0}'s own settings go on its method, in #[{0}(…)]",
                        kind.name()
                    ));
                }
                cx.error_at(span, message);
            }
            Ok(())
        });
        if let Err(err) = syn::parse::Parser::parse2(parser, tokens) {
            cx.syn_error(err);
        }
        attrs
    }
}

/// `#[arg(…)]` on a parameter. Every key is parsed wherever it is written; the checks refuse
/// those that do not apply to a tool's, a prompt's or a resource's parameter.
#[derive(Default)]
pub struct ArgAttrs {
    pub rename: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    /// `default` alone (`Default::default()`) is `Some(None)`; `default = EXPR` is `Some(Some(EXPR))`.
    pub default: Option<Spanned<Option<Expr>>>,
    /// `deprecated` alone is `Some(None)`; `deprecated = "use `x` instead"` is `Some(Some(note))`.
    pub deprecated: Option<Spanned<Option<String>>>,
    /// `header = "X-Region"`: MCP clients mirror the argument into `Mcp-Param-X-Region`.
    pub header: Option<Spanned<String>>,
    /// `complete = suggest_city`: the function that completes a prompt's argument or a
    /// resource template's variable (MCP `completion/complete`).
    pub complete: Option<Spanned<Expr>>,
}

const ARG_KEYS: &str = "rename, description, default, deprecated, header, complete";

impl ArgAttrs {
    /// Parses every `#[arg(…)]` among a parameter's attributes.
    pub fn parse(cx: &Ctxt, attrs: &[syn::Attribute]) -> ArgAttrs {
        let mut out = ArgAttrs::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("arg")) {
            let result = attr.parse_nested_meta(|meta| {
                let span = syn::spanned::Spanned::span(&meta.path);
                let ident = meta
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                match ident.as_str() {
                    "rename" => set_once(cx, &mut out.rename, &meta, string_value(&meta)?),
                    "description" => {
                        set_once(cx, &mut out.description, &meta, string_value(&meta)?)
                    }
                    "default" => {
                        let expr = if meta.input.peek(syn::Token![=]) {
                            Some(meta.value()?.parse::<Expr>()?)
                        } else {
                            None
                        };
                        set_once(cx, &mut out.default, &meta, Spanned { value: expr, span });
                    }
                    "deprecated" => {
                        let note = if meta.input.peek(syn::Token![=]) {
                            Some(meta.value()?.parse::<LitStr>()?.value())
                        } else {
                            None
                        };
                        set_once(
                            cx,
                            &mut out.deprecated,
                            &meta,
                            Spanned { value: note, span },
                        );
                    }
                    "header" => set_once(cx, &mut out.header, &meta, string_value(&meta)?),
                    "complete" => {
                        let value = Spanned {
                            value: meta.value()?.parse::<Expr>()?,
                            span,
                        };
                        set_once(cx, &mut out.complete, &meta, value);
                    }
                    _ => {
                        skip_value(&meta)?;
                        cx.error_at(span, unknown_key(&meta.path, "#[arg(…)]", ARG_KEYS));
                    }
                }
                Ok(())
            });
            if let Err(err) = result {
                cx.syn_error(err);
            }
        }
        out
    }
}

/// The names serde reads a parameter under, from the `#[serde(…)]` attributes forwarded to its
/// field: serde's grammar is serde's, so only these keys are read and anything else is skipped
/// (serde_derive reports its own errors).
#[derive(Default)]
pub struct SerdeNames {
    /// `rename = "…"` or `rename(deserialize = "…")`: the name the field is read under.
    pub rename: Option<Spanned<String>>,
    /// `alias = "…"`: further names it is read under.
    pub aliases: Vec<Spanned<String>>,
    /// `skip` or `skip_deserializing`: not read at all.
    pub skipped: bool,
    /// `flatten`, where it is: the field's properties are the object's own.
    pub flatten: Option<Span>,
    /// `default` or `default = "path"`: the argument may be left out.
    pub default: bool,
}

impl SerdeNames {
    /// Reads the `#[serde(…)]` attributes among `attrs`.
    pub fn parse(attrs: &[syn::Attribute]) -> SerdeNames {
        let mut out = SerdeNames::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    if meta.input.peek(syn::Token![=]) {
                        out.rename = Some(string_value(&meta)?);
                    } else if meta.input.peek(syn::token::Paren) {
                        meta.parse_nested_meta(|inner| {
                            if inner.path.is_ident("deserialize") {
                                out.rename = Some(string_value(&inner)?);
                                Ok(())
                            } else {
                                skip_value(&inner)
                            }
                        })?;
                    }
                    Ok(())
                } else if meta.path.is_ident("alias") {
                    out.aliases.push(string_value(&meta)?);
                    Ok(())
                } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                    out.skipped = true;
                    Ok(())
                } else if meta.path.is_ident("flatten") {
                    out.flatten = Some(syn::spanned::Spanned::span(&meta.path));
                    Ok(())
                } else if meta.path.is_ident("default") {
                    out.default = true;
                    skip_value(&meta)
                } else {
                    skip_value(&meta)
                }
            });
        }
        out
    }
}

/// "unknown key `readonly` in #[tool(…)]: did you mean `read_only`? The keys are: …"
fn unknown_key(key: &Path, place: &str, known: &str) -> String {
    let key = quote::quote!(#key).to_string().replace(' ', "");
    let suggestion = closest(&key, known.split(", "))
        .map(|k| format!("did you mean `{k}`? "))
        .unwrap_or_default();
    format!("unknown key `{key}` in {place}: {suggestion}the keys are: {known}")
}

/// The one of `known` that `key` is most likely a slip for (at most two edits away, case and
/// separators aside), for a "did you mean".
pub fn closest<'a>(key: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (k, strsim::levenshtein(&normalise(key), &normalise(k))))
        .filter(|&(_, d)| d <= 2)
        .min_by_key(|&(_, d)| d)
        .map(|(k, _)| k)
}

/// Case and separators do not make a different key: `readOnly`, `read-only` → `readonly`.
fn normalise(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// `icon = "https://…"` (its `src` alone) or `icon(src = "…", mime_type = "…", …)`.
fn icon(cx: &Ctxt, meta: &ParseNestedMeta, span: Span) -> syn::Result<Icon> {
    let mut icon = Icon {
        src: None,
        mime_type: None,
        sizes: None,
        theme: None,
        span,
    };
    if meta.input.peek(syn::Token![=]) {
        icon.src = Some(string_value(meta)?);
        return Ok(icon);
    }
    if !meta.input.peek(syn::token::Paren) {
        return Err(syn::Error::new(
            span,
            "`icon` takes the icon's URI, `icon = \"https://example.com/icon.png\"`, or its \
             parts, `icon(src = \"…\", mime_type = \"image/png\", sizes = \"48x48\", theme = \
             \"light\")`",
        ));
    }
    meta.parse_nested_meta(|inner| {
        let ident = inner
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match ident.as_str() {
            "src" => set_once(cx, &mut icon.src, &inner, string_value(&inner)?),
            "mime_type" => set_once(cx, &mut icon.mime_type, &inner, string_value(&inner)?),
            "sizes" => set_once(cx, &mut icon.sizes, &inner, string_value(&inner)?),
            "theme" => set_once(cx, &mut icon.theme, &inner, string_value(&inner)?),
            _ => {
                skip_value(&inner)?;
                let at = syn::spanned::Spanned::span(&inner.path);
                cx.error_at(at, unknown_key(&inner.path, "icon(…)", ICON_KEYS));
            }
        }
        Ok(())
    })?;
    Ok(icon)
}

/// `annotations(audience = ["user"], priority = 0.5, last_modified = "…")`.
fn annotations(cx: &Ctxt, meta: &ParseNestedMeta, span: Span) -> syn::Result<Annotations> {
    let mut out = Annotations {
        audience: None,
        priority: None,
        last_modified: None,
        span,
    };
    if !meta.input.peek(syn::token::Paren) {
        return Err(syn::Error::new(
            span,
            "`annotations` takes its entries in parentheses: `annotations(audience = [\"user\"], \
             priority = 0.5, last_modified = \"2025-01-12T15:00:58Z\")`",
        ));
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let entries: TokenStream = content.parse()?;
    // `annotations()` is reported as empty by the checks, in words, rather than as syn's
    // "expected nested attribute".
    if entries.is_empty() {
        return Ok(out);
    }
    let parser = syn::meta::parser(|inner| {
        let ident = inner
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match ident.as_str() {
            "audience" => {
                let value = inner.value()?;
                let roles = if value.peek(syn::token::Bracket) {
                    let content;
                    syn::bracketed!(content in value);
                    syn::punctuated::Punctuated::<LitStr, syn::Token![,]>::parse_terminated(
                        &content,
                    )?
                    .into_iter()
                    .collect()
                } else {
                    vec![value.parse::<LitStr>()?]
                };
                let roles = roles
                    .into_iter()
                    .map(|lit| Spanned {
                        value: lit.value(),
                        span: lit.span(),
                    })
                    .collect();
                set_once(cx, &mut out.audience, &inner, roles);
            }
            "priority" => {
                let lit: syn::Lit = inner.value()?.parse()?;
                let (digits, value) = match &lit {
                    syn::Lit::Float(float) => {
                        (float.base10_digits().to_owned(), float.base10_parse()?)
                    }
                    syn::Lit::Int(int) => (int.base10_digits().to_owned(), int.base10_parse()?),
                    _ => {
                        return Err(syn::Error::new(
                            lit.span(),
                            "`priority` is a number from 0 to 1, such as `priority = 0.5`",
                        ));
                    }
                };
                let priority = Spanned {
                    value: (digits, value),
                    span: lit.span(),
                };
                set_once(cx, &mut out.priority, &inner, priority);
            }
            "last_modified" => {
                set_once(cx, &mut out.last_modified, &inner, string_value(&inner)?);
            }
            _ => {
                skip_value(&inner)?;
                let at = syn::spanned::Spanned::span(&inner.path);
                cx.error_at(
                    at,
                    unknown_key(&inner.path, "annotations(…)", ANNOTATION_KEYS),
                );
            }
        }
        Ok(())
    });
    syn::parse::Parser::parse2(parser, entries)?;
    Ok(out)
}

fn string_value(meta: &ParseNestedMeta) -> syn::Result<Spanned<String>> {
    let lit: LitStr = meta.value()?.parse()?;
    Ok(Spanned {
        value: lit.value(),
        span: lit.span(),
    })
}

fn bool_value(meta: &ParseNestedMeta) -> syn::Result<bool> {
    let lit: LitBool = meta.value()?.parse()?;
    Ok(lit.value)
}

/// `read_only` alone means true; `read_only = false` is allowed too.
fn flag(cx: &Ctxt, slot: &mut Option<bool>, meta: &ParseNestedMeta) -> syn::Result<()> {
    let value = if meta.input.peek(syn::Token![=]) {
        bool_value(meta)?
    } else {
        true
    };
    if slot.replace(value).is_some() {
        duplicate(cx, meta);
    }
    Ok(())
}

fn set_once<T>(cx: &Ctxt, slot: &mut Option<T>, meta: &ParseNestedMeta, value: T) {
    if slot.replace(value).is_some() {
        duplicate(cx, meta);
    }
}

fn duplicate(cx: &Ctxt, meta: &ParseNestedMeta) {
    let key = &meta.path;
    cx.error_spanned_by(
        key,
        format!(
            "`{}` is given twice; keep one",
            quote::quote!(#key).to_string().replace(' ', "")
        ),
    );
}

/// Consumes `= value` or `(…)` after an unknown key so that parsing can go on to the next key.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn did_you_mean() {
        let path: Path = syn::parse_quote!(readonly);
        assert!(
            unknown_key(&path, "#[tool(…)]", Kind::Tool.keys())
                .contains("did you mean `read_only`?")
        );
        let path: Path = syn::parse_quote!(defualt);
        assert!(unknown_key(&path, "#[arg(…)]", ARG_KEYS).contains("did you mean `default`?"));
        let path: Path = syn::parse_quote!(deprecate);
        assert!(unknown_key(&path, "#[arg(…)]", ARG_KEYS).contains("did you mean `deprecated`?"));
        let path: Path = syn::parse_quote!(colour);
        assert!(!unknown_key(&path, "#[tool(…)]", Kind::Tool.keys()).contains("did you mean"));
        let path: Path = syn::parse_quote!(mimeType);
        assert!(unknown_key(&path, "icon(…)", ICON_KEYS).contains("did you mean `mime_type`?"));
    }

    #[test]
    fn serde_names() {
        let attrs: Vec<syn::Attribute> = vec![
            syn::parse_quote!(#[serde(default, rename(serialize = "out", deserialize = "in"))]),
            syn::parse_quote!(#[serde(alias = "a", with = "m", alias = "b")]),
        ];
        let names = SerdeNames::parse(&attrs);
        assert_eq!(names.rename.map(|r| r.value).as_deref(), Some("in"));
        let aliases: Vec<String> = names.aliases.into_iter().map(|a| a.value).collect();
        assert_eq!(aliases, ["a", "b"]);
        assert!(!names.skipped);

        let attrs: Vec<syn::Attribute> =
            vec![syn::parse_quote!(#[serde(rename = "x", skip_deserializing)])];
        let names = SerdeNames::parse(&attrs);
        assert_eq!(names.rename.map(|r| r.value).as_deref(), Some("x"));
        assert!(names.skipped);
        // `rename(serialize = …)` alone does not change the name arguments are read under.
        let attrs: Vec<syn::Attribute> = vec![syn::parse_quote!(#[serde(rename(serialize = "x"))])];
        assert!(SerdeNames::parse(&attrs).rename.is_none());
    }
}
