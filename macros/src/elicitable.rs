//! `#[derive(Elicitable)]`: a form a tool can ask the user to fill in (MCP elicitation).
//!
//! MCP's `requestedSchema` is a flat object of primitive properties. On a struct, the derive
//! implements `Elicitable` and checks each field's type against `ElicitField` in the signature of
//! a function that is never called, spanned at the field (as `#[derive(Portable)]` does), so a
//! nested struct, a map or a list of strings is an error at that field. On an enum of unit
//! variants, it implements `ElicitField` and `ElicitChoice`: the enum is a single or multiple
//! choice. Anything else is refused here, with what the form can take.
//!
//! What the author writes in attributes is checked too, where it can be seen: something a form
//! cannot carry (`#[schemars(example)]`, `#[deprecated]`, an `extend` keyword MCP's form has
//! not) is refused at it, and an enum's `enumNames` must name each variant once, without the
//! variants' own titles beside them. The runtime refuses the rest when the form is made
//! (`Elicitable::form`), since the schema of a field's type is not visible here.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Expr, Fields, Lit, LitStr, Token};

use crate::ctxt::Ctxt;
use crate::families::spanned_check;
use crate::portable::{crate_path, keys, schema_type, skipped};

/// Expands the derive; errors are emitted beside what could be made, so that they come alone.
pub fn derive(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let cx = Ctxt::default();
    let krate = crate_path(&cx, &input.attrs, "elicitable");
    let ident = &input.ident;
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "an elicitation form cannot be generic: the user is shown one form, so name its \
             field types",
        );
    }
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let expanded = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => {
                let mut checks = Vec::new();
                let mut asserted = Vec::new();
                field_attrs(&cx, &input.attrs, CONTAINER_KEYWORDS, "the form");
                let all_defaulted = serde_default(&input.attrs);
                for field in &named.named {
                    if skipped(&field.attrs) {
                        continue;
                    }
                    field_attrs(&cx, &field.attrs, FIELD_KEYWORDS, "a form's field");
                    let flattened = field
                        .attrs
                        .iter()
                        .filter(|a| a.path().is_ident("serde"))
                        .flat_map(keys)
                        .any(|(key, _)| key == "flatten");
                    if flattened {
                        cx.error_spanned_by(
                            field,
                            "`#[serde(flatten)]` cannot be part of an elicitation form: MCP \
                             elicitation shows one flat object, so write the fields here",
                        );
                        continue;
                    }
                    let ty = schema_type(&cx, &field.attrs).unwrap_or_else(|| field.ty.clone());
                    let private = quote!(#krate::__private);
                    checks.push(spanned_check(
                        &ty,
                        &private,
                        quote!(CheckElicitField),
                        false,
                    ));
                    // schemars writes a default into the schema only for a type that
                    // serialises, and leaves it out without a word otherwise.
                    if all_defaulted || serde_default(&field.attrs) {
                        let ty = element(&field.ty);
                        asserted.push(quote_spanned! {ty.span()=>
                            #private::assert_elicit_default::<#ty>();
                        });
                    }
                }
                quote! {
                    impl #impl_generics #krate::Elicitable for #ident #ty_generics #where_clause {}

                    const _: () = {
                        #[allow(dead_code, clippy::all)]
                        fn __tooldef_elicit_checks(#(_: #checks),*) {
                            #(#asserted)*
                        }
                    };
                }
            }
            Fields::Unnamed(_) | Fields::Unit => {
                cx.error_spanned_by(
                    ident,
                    format!(
                        "`{ident}` has no named fields, and an elicitation form is an object: \
                         give it named fields, one per question (`struct {ident} {{ confirm: \
                         bool }}`)"
                    ),
                );
                quote!()
            }
        },
        Data::Enum(data) => {
            enum_attrs(&cx, &input.attrs, data);
            for variant in &data.variants {
                if !matches!(variant.fields, Fields::Unit) {
                    cx.error_spanned_by(
                        &variant.fields,
                        format!(
                            "the variant `{ident}::{}` holds data, and a choice in an \
                             elicitation form is a string: make every variant a unit variant",
                            variant.ident
                        ),
                    );
                }
            }
            quote! {
                impl #impl_generics #krate::ElicitField for #ident #ty_generics #where_clause {}
                impl #impl_generics #krate::ElicitChoice for #ident #ty_generics #where_clause {}
            }
        }
        Data::Union(data) => {
            cx.error_spanned_by(
                data.union_token,
                "a union cannot be an elicitation form: serde cannot deserialise one; use a \
                 struct",
            );
            quote!()
        }
    };
    let errors = cx.check().err().map(syn::Error::into_compile_error);
    Ok(quote!(#errors #expanded))
}

/// The keywords `#[schemars(extend(…))]` may add to a form's field: those MCP's form shapes
/// have, and those the answer is checked against.
const FIELD_KEYWORDS: &[&str] = &[
    "title",
    "description",
    "default",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "format",
    "enumNames",
    "minItems",
    "maxItems",
    "pattern",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "uniqueItems",
];

/// The keywords `extend` may add to the form itself.
const CONTAINER_KEYWORDS: &[&str] = &["title", "description"];

/// The keywords `extend` may add to an enum (a choice): its own, and its legacy titles.
const CHOICE_KEYWORDS: &[&str] = &["title", "description", "default", "enumNames"];

/// `#[deprecated]`, `#[schemars(example …)]` and `extend` keywords outside `keywords`, each
/// refused at itself: the user would never see them.
fn field_attrs(cx: &Ctxt, attrs: &[Attribute], keywords: &[&str], place: &str) {
    for attr in attrs {
        if attr.path().is_ident("deprecated") {
            cx.error_spanned_by(
                attr,
                format!(
                    "`#[deprecated]` on {place} cannot reach an elicitation form: MCP's form has \
                     no `deprecated`, so the user would never see it; say it in the doc comment"
                ),
            );
        }
        if !attr.path().is_ident("schemars") {
            continue;
        }
        for (key, _) in crate::portable::keys(attr) {
            if key == "example" || key == "examples" {
                cx.error_spanned_by(
                    attr,
                    format!(
                        "`#[schemars({key})]` on {place} cannot reach an elicitation form: MCP's \
                         form has no examples, so the user would never see them; say it in the \
                         doc comment, which is the field's description"
                    ),
                );
            }
        }
        for (keyword, value) in extends(attr) {
            let name = keyword.value();
            if !keywords.contains(&name.as_str()) {
                cx.error_spanned_by(
                    &keyword,
                    format!(
                        "`{name}` on {place} cannot reach an elicitation form: MCP's form does \
                         not have it, so the user would never see it (a form takes {})",
                        keywords
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            } else if name == "enumNames" {
                let _ = enum_names(cx, &keyword, &value);
            }
        }
    }
}

/// An enum's attributes and its variants': `enumNames` naming each variant once, and no title
/// given twice.
fn enum_attrs(cx: &Ctxt, attrs: &[Attribute], data: &syn::DataEnum) {
    field_attrs(cx, attrs, CHOICE_KEYWORDS, "a choice");
    let variants: Vec<&syn::Variant> = data
        .variants
        .iter()
        .filter(|variant| !skipped(&variant.attrs))
        .collect();
    let mut titled = None;
    for variant in &variants {
        field_attrs(cx, &variant.attrs, &["title", "description"], "a variant");
        let documented = variant.attrs.iter().any(|a| a.path().is_ident("doc"));
        let schemars_keys: Vec<String> = variant
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("schemars"))
            .flat_map(crate::portable::keys)
            .map(|(key, _)| key)
            .collect();
        let title = schemars_keys.iter().any(|key| key == "title");
        let description = schemars_keys.iter().any(|key| key == "description");
        if title && (documented || description) {
            cx.error_spanned_by(
                &variant.ident,
                format!(
                    "the variant `{}` has a title and a description, and a choice in an MCP \
                     form has a title only: keep `#[schemars(title)]` or the doc comment",
                    variant.ident
                ),
            );
        }
        if titled.is_none() && (documented || title || description) {
            titled = Some(&variant.ident);
        }
    }
    for attr in attrs.iter().filter(|a| a.path().is_ident("schemars")) {
        for (keyword, value) in extends(attr) {
            if keyword.value() != "enumNames" {
                continue;
            }
            let Some(count) = enum_names(cx, &keyword, &value) else {
                continue;
            };
            if count != variants.len() {
                cx.error_spanned_by(
                    &value,
                    format!(
                        "`enumNames` gives {count} {} for {} variants: give one per variant, in \
                         order",
                        if count == 1 { "name" } else { "names" },
                        variants.len()
                    ),
                );
            }
            if let Some(variant) = titled {
                cx.error_spanned_by(
                    &keyword,
                    format!(
                        "`enumNames` titles the choices, and the variant `{variant}` has a title \
                         of its own (a doc comment or `#[schemars(title)]`): keep one way"
                    ),
                );
            }
        }
    }
}

/// The type inside `Option`s and `Vec`s: one of those serialises when it does, and naming it
/// puts the error (and its message) on the type at fault rather than on rustc's general one.
fn element(ty: &syn::Type) -> &syn::Type {
    if let syn::Type::Path(path) = ty
        && let Some(last) = path.path.segments.last()
        && (last.ident == "Option" || last.ident == "Vec")
        && let syn::PathArguments::AngleBracketed(args) = &last.arguments
        && let [syn::GenericArgument::Type(inner)] = args.args.iter().collect::<Vec<_>>()[..]
    {
        return element(inner);
    }
    ty
}

/// `#[serde(default)]` or `#[serde(default = "…")]`.
fn serde_default(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
        .flat_map(crate::portable::keys)
        .any(|(key, _)| key == "default")
}

/// The number of names of an `enumNames`, which must be a list of string literals.
fn enum_names(cx: &Ctxt, keyword: &LitStr, value: &Expr) -> Option<usize> {
    let Expr::Array(list) = value else {
        cx.error_spanned_by(
            keyword,
            "`enumNames` is a list of the choices' titles, in order: `[\"First\", \"Second\"]`",
        );
        return None;
    };
    let all_strings = list
        .elems
        .iter()
        .all(|element| matches!(element, Expr::Lit(lit) if matches!(lit.lit, Lit::Str(_))));
    if !all_strings {
        cx.error_spanned_by(value, "`enumNames` must be a list of string literals");
        return None;
    }
    Some(list.elems.len())
}

/// The `"keyword" = value` items of a `#[schemars(extend(…))]`.
fn extends(attr: &Attribute) -> Vec<(LitStr, Expr)> {
    struct Item {
        keyword: LitStr,
        value: Expr,
    }
    impl syn::parse::Parse for Item {
        fn parse(input: syn::parse::ParseStream) -> syn::Result<Item> {
            let keyword = input.parse()?;
            input.parse::<Token![=]>()?;
            Ok(Item {
                keyword,
                value: input.parse()?,
            })
        }
    }
    let Ok(list) = attr.meta.require_list() else {
        return Vec::new();
    };
    let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
    let mut items = Vec::new();
    for pair in tokens.windows(2) {
        let [TokenTree::Ident(name), TokenTree::Group(group)] = pair else {
            continue;
        };
        if name != "extend" || group.delimiter() != Delimiter::Parenthesis {
            continue;
        }
        let parser = Punctuated::<Item, Token![,]>::parse_terminated;
        // What does not parse is schemars' to report, in its own words.
        if let Ok(parsed) = syn::parse::Parser::parse2(parser, group.stream()) {
            items.extend(parsed.into_iter().map(|item| (item.keyword, item.value)));
        }
    }
    items
}
