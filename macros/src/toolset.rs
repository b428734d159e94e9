//! `toolset![A, B, C]`: a `ToolSetBuilder` with these tools, whose names are checked to be
//! distinct at compile time.
//!
//! A tool's name is `<T as Tool>::NAME`, a constant, so a `const` item can compare every pair:
//! a clash stops compilation, pointed at the second tool of the pair.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Path, Token};

/// Expands the macro.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let tools = Punctuated::<Path, Token![,]>::parse_terminated.parse2(input)?;
    let tools: Vec<&Path> = tools.iter().collect();
    let mut checks = Vec::new();
    for (j, later) in tools.iter().enumerate() {
        for earlier in &tools[..j] {
            let message = format!(
                "`{}` has the same name as `{}`, and a tool set needs distinct names: rename one \
                 with #[tool(name = \"…\")]",
                quote!(#later).to_string().replace(' ', ""),
                quote!(#earlier).to_string().replace(' ', ""),
            );
            checks.push(quote_spanned! {later.span()=>
                const _: () = if ::tooldef::__private::same_name(
                    <#earlier as ::tooldef::Tool>::NAME,
                    <#later as ::tooldef::Tool>::NAME,
                ) {
                    ::core::panic!(#message)
                };
            });
        }
    }
    Ok(quote! {
        {
            #(#checks)*
            ::tooldef::ToolSet::builder() #(.tool(#tools))*
        }
    })
}
