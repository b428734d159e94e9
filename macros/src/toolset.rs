//! `toolset![A, B, C]`: a `ToolSetBuilder` with these tools, whose names are checked to be
//! distinct at compile time.
//!
//! A tool's name is `<T as Tool>::NAME`, a constant, so `const` items can check them, in work
//! linear in the number of tools for the compiler: one array of the names, one call of
//! `__private::first_of_each_name` (O(n log n) in const evaluation: hashes, a sort, and a string
//! comparison only between equal hashes) giving each tool the index of the first tool of its
//! name, then one assertion per tool, spanned at that tool's path, that it is its own first. A
//! clash stops compilation at every later tool of the name, each error naming the name and the
//! first tool that has it.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Path, Token};

/// Expands the macro.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let tools = Punctuated::<Path, Token![,]>::parse_terminated.parse2(input)?;
    let tools: Vec<&Path> = tools.iter().collect();
    let builder = quote!(::tooldef::ToolSet::builder() #(.tool(#tools))*);
    if tools.len() < 2 {
        // Nothing to compare.
        return Ok(quote!({ #builder }));
    }

    let count = tools.len();
    let names = tools.iter().map(|tool| {
        let (first, last) = ends(tool);
        let name = quote_spanned!(last=> NAME);
        quote_spanned!(first=> <#tool as ::tooldef::Tool>::#name)
    });
    let spellings: Vec<String> = tools.iter().map(|tool| spelling(tool)).collect();
    let mut written = HashSet::new();
    let checks = tools.iter().enumerate().map(|(index, tool)| {
        let (first, last) = ends(tool);
        if !written.insert(&spellings[index]) {
            // The same path twice: renaming would not help.
            let message = format!(
                "`{}` is listed twice, and a tool set takes each tool once: remove this one",
                spellings[index]
            );
            let compile_error = quote_spanned!(first=> ::core::compile_error);
            let arguments = quote_spanned!(last=> (#message));
            return quote!(#compile_error! #arguments;);
        }
        let later = format!("`{}` has the same name, \"", spellings[index]);
        // `::core::panic` at the path's first token and its arguments at its last, so that the
        // error, which rustc shows at the whole `panic!(…)`, underlines the whole path.
        let panic_path = quote_spanned!(first=> ::core::panic);
        let panic_arguments = quote_spanned!(last=> ("{}", message.as_str()));
        quote_spanned! {last=>
            const _: () = {
                let first = __TOOLDEF_FIRST[#index];
                if first != #index {
                    let message = ::tooldef::__private::ConstMessage::concat(&[
                        #later,
                        __TOOLDEF_NAMES[#index],
                        "\", as `",
                        __TOOLDEF_TYPES[first],
                        "`, and a tool set needs distinct names: rename one with \
                         #[tool(name = \"…\")]",
                    ]);
                    #panic_path! #panic_arguments
                }
            };
        }
    });
    Ok(quote! {
        {
            const __TOOLDEF_NAMES: [&str; #count] = [#(#names),*];
            const __TOOLDEF_TYPES: [&str; #count] = [#(#spellings),*];
            const __TOOLDEF_FIRST: [usize; #count] =
                ::tooldef::__private::first_of_each_name(&__TOOLDEF_NAMES);
            #(#checks)*
            #builder
        }
    })
}

/// The path as its user wrote it, for messages: `my_crate::tools::GetWeather`.
fn spelling(path: &Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// The spans of the path's first and last tokens (stable Rust cannot join them into one; rustc
/// joins the spans of a macro call's first and last tokens).
fn ends(path: &Path) -> (Span, Span) {
    let mut tokens = path.to_token_stream().into_iter();
    let first = tokens
        .next()
        .map_or_else(Span::call_site, |token| token.span());
    let last = tokens.last().as_ref().map_or(first, TokenTree::span);
    (first, last)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `const` items in the expansion of `toolset!` over `count` tools.
    fn const_items(count: usize) -> usize {
        let tools = (0..count).map(|i| format!("crate::tools::Tool{i}"));
        let input: TokenStream = tools.collect::<Vec<_>>().join(", ").parse().unwrap();
        let expansion = syn::parse2::<syn::ExprBlock>(expand(input).unwrap()).unwrap();
        expansion
            .block
            .stmts
            .iter()
            .filter(|statement| matches!(statement, syn::Stmt::Item(syn::Item::Const(_))))
            .count()
    }

    #[test]
    fn one_assertion_per_tool_and_three_tables() {
        assert_eq!(const_items(0), 0);
        assert_eq!(const_items(1), 0);
        assert_eq!(const_items(2), 5);
        assert_eq!(const_items(100), 103);
    }

    #[test]
    fn messages_spell_the_path_as_written() {
        let path: Path = syn::parse_str("my_crate :: tools :: GetWeather").unwrap();
        assert_eq!(spelling(&path), "my_crate::tools::GetWeather");
    }
}
