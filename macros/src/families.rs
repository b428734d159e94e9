//! The portability checks the macros emit for a type as the user wrote it.
//!
//! Types no target can express strictly (maps, tuples, 128-bit integers, references) are
//! refused by `Portable` impls that are `#[diagnostic::do_not_recommend]`, so that rustc does not
//! list them among the types that implement `Portable` when a type has not opted in. That
//! attribute also makes rustc report such a type with `Portable`'s own message, so where the type
//! is written out (the parameter's or the field's type, at any depth), the family is recognised
//! by its spelling and checked against its marker trait directly: the error is the family's own
//! message, spanned at the family's type. Everything else is checked against `Portable`.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::Type;
use syn::visit::Visit;

/// A refused family, as recognised by its spelling.
#[derive(Clone, Copy)]
enum Family {
    Map,
    Tuple,
    WideInteger,
    Reference,
}

impl Family {
    /// The `__private` struct whose bound is the family's marker trait.
    fn check(self) -> TokenStream {
        match self {
            Family::Map => quote!(RefusedMap),
            Family::Tuple => quote!(RefusedTuple),
            Family::WideInteger => quote!(RefusedWideInteger),
            Family::Reference => quote!(RefusedReference),
        }
    }
}

/// The parameter types of a never-called function whose signature checks that `ty` is portable:
/// one per refused family written in `ty`, or else one that `ty` implements `Portable`. Each is
/// spanned at the type it is about.
pub fn portability_checks(ty: &Type, private: &TokenStream) -> Vec<TokenStream> {
    let mut finder = FamilyFinder(Vec::new());
    finder.visit_type(ty);
    if finder.0.is_empty() {
        return vec![spanned_check(ty, private, quote!(CheckPortable), false)];
    }
    finder
        .0
        .iter()
        .map(|(family, found)| match (family, uniform_tuple(found)) {
            // "Items of different types" would not be true of `(u8, u8, u8)`, and `[u8; 3]` is
            // what to take instead: its own check, which names the array.
            (Family::Tuple, Some(array)) => {
                let check = quote!(RefusedUniformTuple);
                spanned_check_with(found, private, check, true, Some(&array))
            }
            _ => spanned_check(found, private, family.check(), true),
        })
        .collect()
}

/// `[T; N]` for a tuple of `N` items all written `T`: the fixed-length array that serde reads
/// from the same JSON, and that every target accepts. Items are compared as written, so
/// `(u8, std::primitive::u8)` is not recognised; it gets the message of tuples in general.
fn uniform_tuple(ty: &Type) -> Option<Type> {
    let Type::Tuple(tuple) = ty else {
        return None;
    };
    let (item, count) = uniform(tuple.elems.iter())?;
    Some(array_of(item, count))
}

/// The type all of `types` are written as, and how many there are; `None` when they are written
/// differently, or there are none.
pub(crate) fn uniform<'a>(types: impl Iterator<Item = &'a Type>) -> Option<(&'a Type, usize)> {
    let mut types = types.peekable();
    let first = *types.peek()?;
    let spelled = first.to_token_stream().to_string();
    let mut count = 0;
    for ty in types {
        if ty.to_token_stream().to_string() != spelled {
            return None;
        }
        count += 1;
    }
    Some((first, count))
}

/// `[item; count]`.
fn array_of(item: &Type, count: usize) -> Type {
    let count = proc_macro2::Literal::usize_unsuffixed(count);
    syn::parse_quote!([#item; #count])
}

/// `__private::Check<'_, T>`, every token spanned so that rustc's span of the whole path is the
/// span of `ty` (from its first token to its last).
pub(crate) fn spanned_check(
    ty: &Type,
    private: &TokenStream,
    check: TokenStream,
    lifetime: bool,
) -> TokenStream {
    spanned_check_with(ty, private, check, lifetime, None)
}

/// [`spanned_check`] with one more type argument after `ty`, spanned at `ty`'s last token so
/// that the span of the whole path stays `ty`'s.
fn spanned_check_with(
    ty: &Type,
    private: &TokenStream,
    check: TokenStream,
    lifetime: bool,
    also: Option<&Type>,
) -> TokenStream {
    let (first, last) = first_and_last_span(ty);
    let path = respan(quote!(#private::#check), first);
    let lifetime = lifetime.then(|| quote_spanned!(first=> '_,));
    let open = quote_spanned!(first=> <);
    let also = also.map(|also| respan(quote!(, #also), last));
    let close = quote_spanned!(last=> >);
    quote!(#path #open #lifetime #ty #also #close)
}

/// The tokens with every span set to `span`.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

pub(crate) fn first_and_last_span(ty: &Type) -> (Span, Span) {
    let tokens: Vec<_> = ty.to_token_stream().into_iter().collect();
    let first = tokens.first().map_or_else(Span::call_site, |t| t.span());
    let last = tokens.last().map_or(first, |t| t.span());
    (first, last)
}

/// Collects the refused families written in a type, outermost first.
struct FamilyFinder(Vec<(Family, Type)>);

impl<'ast> Visit<'ast> for FamilyFinder {
    fn visit_type(&mut self, ty: &'ast Type) {
        let family = match ty {
            Type::Reference(_) => Some(Family::Reference),
            Type::Tuple(tuple) if !tuple.elems.is_empty() => Some(Family::Tuple),
            Type::Path(path) if path.qself.is_none() => {
                path.path.segments.last().and_then(|last| {
                    let name = last.ident.to_string();
                    match name.as_str() {
                        "HashMap" | "BTreeMap" => Some(Family::Map),
                        "u128" | "i128" if last.arguments.is_none() => Some(Family::WideInteger),
                        _ => None,
                    }
                })
            }
            _ => None,
        };
        match family {
            Some(family) => self.0.push((family, ty.clone())),
            None => syn::visit::visit_type(self, ty),
        }
    }

    // Array lengths and other expressions hold no types that reach the schema.
    fn visit_expr(&mut self, _: &'ast syn::Expr) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn families(ty: Type) -> Vec<String> {
        let mut finder = FamilyFinder(Vec::new());
        finder.visit_type(&ty);
        finder
            .0
            .iter()
            .map(|(_, ty)| ty.to_token_stream().to_string().replace(' ', ""))
            .collect()
    }

    #[test]
    fn families_are_found_where_they_are_written() {
        assert_eq!(
            families(syn::parse_quote!(Vec<Option<BTreeMap<String, (u8, i128)>>>)),
            ["BTreeMap<String,(u8,i128)>"]
        );
        assert_eq!(
            families(syn::parse_quote!(Option<(f64, f64)>)),
            ["(f64,f64)"]
        );
        assert_eq!(
            families(syn::parse_quote!(Result<&'a str, std::primitive::u128>)),
            ["&'astr", "std::primitive::u128"]
        );
        assert!(families(syn::parse_quote!(Vec<Option<String>>)).is_empty());
        assert!(families(syn::parse_quote!([u8; 16])).is_empty());
        assert!(families(syn::parse_quote!(Wrapper<()>)).is_empty());
        assert!(families(syn::parse_quote!(serde_json::Value)).is_empty());
    }

    fn array(ty: Type) -> Option<String> {
        uniform_tuple(&ty).map(|array| array.to_token_stream().to_string().replace(' ', ""))
    }

    #[test]
    fn tuples_of_one_type_become_arrays() {
        assert_eq!(
            array(syn::parse_quote!((u8, u8, u8))).as_deref(),
            Some("[u8;3]")
        );
        assert_eq!(
            array(syn::parse_quote!((Vec<String>,))).as_deref(),
            Some("[Vec<String>;1]")
        );
        assert_eq!(array(syn::parse_quote!((f64, f32))), None);
        assert_eq!(array(syn::parse_quote!((u8, std::primitive::u8))), None);
        assert_eq!(array(syn::parse_quote!(())), None);
    }
}
