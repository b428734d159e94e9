//! `#[derive(Portable)]`: opts a type in to the portability checks, and checks its fields.
//!
//! The impl is unconditional (apart from the type's own parameters), and each field's type is
//! checked in the signature of a separate function, spanned at the field (see `families`): an
//! error then points at the field at fault, and recursive types (`children: Vec<Node>`) do not
//! send the trait solver round in a cycle, as where-clauses on the impl would.

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{Attribute, Data, DeriveInput, Fields, LitStr, Type};

use crate::ctxt::Ctxt;

/// Expands the derive. Errors are emitted beside the impl, so that a tool taking the type
/// reports them and not also that the type has not opted in.
pub fn derive(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let cx = Ctxt::default();
    let krate = crate_path(&cx, &input.attrs, "portable");
    // `transparent`, `from` and `try_from` give the type another type's form.
    let other_form = input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
        .flat_map(keys)
        .any(|(key, _)| matches!(key.as_str(), "transparent" | "from" | "try_from"));

    let ident = &input.ident;
    let mut field_types: Vec<Type> = Vec::new();
    match &input.data {
        Data::Struct(data) => {
            // A refused tuple's fields would only add noise to its error.
            let refused = !other_form && refuse_tuple(&cx, &data.fields, &ident.to_string(), true);
            if !refused {
                collect_fields(&cx, &data.fields, &mut field_types);
            }
        }
        Data::Enum(data) => {
            for variant in &data.variants {
                if skipped(&variant.attrs) {
                    continue;
                }
                let name = format!("{ident}::{}", variant.ident);
                if !refuse_tuple(&cx, &variant.fields, &name, false) {
                    collect_fields(&cx, &variant.fields, &mut field_types);
                }
            }
        }
        Data::Union(data) => cx.error_spanned_by(
            data.union_token,
            "a union cannot be a tool argument: serde cannot deserialise one; use an enum",
        ),
    }
    let errors = cx.check().err().map(syn::Error::into_compile_error);

    let mut generics = input.generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(syn::parse_quote!(#krate::Portable));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let private = quote!(#krate::__private);
    let checks = field_types
        .iter()
        .flat_map(|ty| crate::families::portability_checks(ty, &private));
    Ok(quote! {
        #errors

        impl #impl_generics #krate::Portable for #ident #ty_generics #where_clause {}

        const _: () = {
            #[allow(dead_code, clippy::all)]
            fn __tooldef_portable_checks #impl_generics (#(_: #checks),*) #where_clause {}
        };
    })
}

/// A tuple struct or variant of more than one field is a JSON array described item by item
/// (`prefixItems`), which OpenAI strict mode and Gemini cannot express. One field is a newtype,
/// which serde makes its inner value. Skipping a field does not change the form: the rest are
/// still an array. Reports it and returns whether it did.
fn refuse_tuple(cx: &Ctxt, fields: &Fields, name: &str, is_struct: bool) -> bool {
    let Fields::Unnamed(unnamed) = fields else {
        return false;
    };
    if unnamed.unnamed.len() < 2 {
        return false;
    }
    if let Some(message) = uniform_tuple_message(fields, name, is_struct) {
        cx.error_spanned_by(unnamed, message);
        return true;
    }
    let types: Vec<String> = unnamed
        .unnamed
        .iter()
        .map(|f| format!("…: {}", crate::ast::as_written(&f.ty)))
        .collect();
    let short = name.rsplit("::").next().unwrap_or(name);
    let (what, named) = if is_struct {
        (
            format!("`{name}` is a tuple struct, which cannot be an argument of a portable tool"),
            format!("struct {short} {{ {} }}", types.join(", ")),
        )
    } else {
        (
            format!(
                "the variant `{name}` holds a tuple, which cannot be part of a portable tool's \
                 arguments"
            ),
            format!("{short} {{ {} }}", types.join(", ")),
        )
    };
    cx.error_spanned_by(
        unnamed,
        format!(
            "{what}: serde reads it as an array whose items have different types, and OpenAI \
             strict mode and Gemini have no `prefixItems`, so the model would not know which \
             item is which; give its fields names (`{named}`), or opt the tool out with \
             `#[tool(strict = false)]` instead of deriving `Portable`"
        ),
    );
    true
}

/// The message for a tuple struct or variant whose fields are all written alike and carry no
/// serde or schemars attributes (`struct Rgb(u8, u8, u8);`): its items do not have different
/// types, and a newtype of the array `[u8; 3]` reads the same JSON (serde makes a newtype its
/// inner value) and is portable, so that is what to take. `None` for any other tuple, which
/// gets the message of tuples in general; with attributes (a skipped field, a `with`), the
/// array would not be the same form.
fn uniform_tuple_message(fields: &Fields, name: &str, is_struct: bool) -> Option<String> {
    let attributed = fields.iter().any(|field| {
        field
            .attrs
            .iter()
            .any(|a| a.path().is_ident("serde") || a.path().is_ident("schemars"))
    });
    if attributed {
        return None;
    }
    let (item, count) = crate::families::uniform(fields.iter().map(|field| &field.ty))?;
    let item = crate::ast::as_written(item);
    let short = name.rsplit("::").next().unwrap_or(name);
    let (what, instead) = if is_struct {
        (
            format!("`{name}` is a tuple struct, which cannot be an argument of a portable tool"),
            format!("struct {short}([{item}; {count}]);"),
        )
    } else {
        (
            format!(
                "the variant `{name}` holds a tuple, which cannot be part of a portable tool's \
                 arguments"
            ),
            format!("{short}([{item}; {count}])"),
        )
    };
    Some(format!(
        "{what}: serde reads it as an array, and schemars describes its items one by one \
         (`prefixItems`), which OpenAI strict mode and Gemini do not support; its {count} items \
         are all `{item}`, so hold them in one array, `{instead}`, which reads the same JSON and \
         which every target accepts, or opt the tool out with `#[tool(strict = false)]` instead \
         of deriving `Portable`"
    ))
}

/// The fields that reach the schema, each as the type its schema comes from.
fn collect_fields(cx: &Ctxt, fields: &Fields, out: &mut Vec<Type>) {
    for field in fields {
        if skipped(&field.attrs) {
            continue;
        }
        out.push(schema_type(cx, &field.attrs).unwrap_or_else(|| field.ty.clone()));
    }
}

/// `#[serde(skip)]`, `#[serde(skip_deserializing)]` and `#[schemars(skip)]` keep a field (or a
/// variant) out of the arguments, so it need not be portable.
pub(crate) fn skipped(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        let is_serde = attr.path().is_ident("serde");
        (is_serde || attr.path().is_ident("schemars"))
            && keys(attr)
                .iter()
                .any(|(key, _)| key == "skip" || (is_serde && key == "skip_deserializing"))
    })
}

/// `#[schemars(with = "T")]`: the schema (and so the model's view) is `T`'s.
pub(crate) fn schema_type(cx: &Ctxt, attrs: &[Attribute]) -> Option<Type> {
    let with = attrs
        .iter()
        .filter(|a| a.path().is_ident("schemars"))
        .flat_map(keys)
        .find_map(|(key, value)| (key == "with").then_some(value).flatten())?;
    match with.parse::<Type>() {
        Ok(ty) => Some(ty),
        Err(err) => {
            cx.syn_error(err);
            None
        }
    }
}

/// The top-level `key` / `key = "value"` items of a list attribute. Other crates' grammars are
/// theirs (`extend("format" = "date")`, `range(min = 1)`): items are split at top-level commas
/// and only a leading identifier is read, so nothing they accept is refused here.
pub(crate) fn keys(attr: &Attribute) -> Vec<(String, Option<LitStr>)> {
    let Ok(list) = attr.meta.require_list() else {
        return Vec::new();
    };
    let mut items: Vec<Vec<TokenTree>> = vec![Vec::new()];
    for token in list.tokens.clone() {
        match &token {
            TokenTree::Punct(p) if p.as_char() == ',' => items.push(Vec::new()),
            _ => {
                if let Some(item) = items.last_mut() {
                    item.push(token);
                }
            }
        }
    }
    items
        .into_iter()
        .filter_map(|item| {
            let Some(TokenTree::Ident(key)) = item.first() else {
                return None;
            };
            let value = match item.as_slice() {
                [_, TokenTree::Punct(eq), TokenTree::Literal(lit)] if eq.as_char() == '=' => {
                    syn::parse2::<LitStr>(lit.to_token_stream()).ok()
                }
                _ => None,
            };
            Some((key.to_string(), value))
        })
        .collect()
}

/// `#[portable(crate = "path")]` (or `#[ATTR(crate = "path")]` for another derive) for a renamed
/// `tooldef` dependency.
pub(crate) fn crate_path(cx: &Ctxt, attrs: &[Attribute], attr_name: &str) -> TokenStream {
    let mut path = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident(attr_name)) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: LitStr = meta.value()?.parse()?;
                path = Some(lit.parse::<syn::Path>()?);
                Ok(())
            } else {
                Err(meta.error(format!(
                    "unknown key in #[{attr_name}(…)]; the only key is `crate`"
                )))
            }
        });
        if let Err(err) = result {
            cx.syn_error(err);
        }
    }
    match path {
        Some(path) => quote!(#path),
        None => quote!(::tooldef),
    }
}
