//! `#[derive(Elicitable)]`: a form a tool can ask the user to fill in (MCP elicitation).
//!
//! MCP's `requestedSchema` is a flat object of primitive properties. On a struct, the derive
//! implements `Elicitable` and checks each field's type against `ElicitField` in the signature of
//! a function that is never called, spanned at the field (as `#[derive(Portable)]` does), so a
//! nested struct, a map or a list of strings is an error at that field. On an enum of unit
//! variants, it implements `ElicitField` and `ElicitChoice`: the enum is a single or multiple
//! choice. Anything else is refused here, with what the form can take.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

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
                for field in &named.named {
                    if skipped(&field.attrs) {
                        continue;
                    }
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
                }
                quote! {
                    impl #impl_generics #krate::Elicitable for #ident #ty_generics #where_clause {}

                    const _: () = {
                        #[allow(dead_code, clippy::all)]
                        fn __tooldef_elicit_checks(#(_: #checks),*) {}
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
