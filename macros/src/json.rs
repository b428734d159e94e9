//! JSON written as Rust literals, for `#[tool(meta(…))]`: `"text"`, `3`, `-1.5`, `true`,
//! `null`, `["a", "b"]` and `{"key": 1, other: [true]}` (an object's keys are strings or
//! identifiers, as in JSON5). The macro writes the value out as JSON text, which the runtime
//! reads once.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, Lit, LitStr, Token, braced, bracketed};

/// A JSON value written in an attribute.
pub enum Json {
    Null,
    Bool(bool),
    /// The number as JSON spells it (a Rust literal's digits, without a suffix).
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// A key given as an identifier (`tags`) or a string (`"com.example/tags"`), with its span.
pub struct Key {
    pub value: String,
    pub span: Span,
}

impl Parse for Key {
    fn parse(input: ParseStream) -> syn::Result<Key> {
        if input.peek(LitStr) {
            let lit: LitStr = input.parse()?;
            Ok(Key {
                value: lit.value(),
                span: lit.span(),
            })
        } else if input.peek(Ident::peek_any) {
            let ident = input.call(Ident::parse_any)?;
            Ok(Key {
                value: crate::ast::unraw(&ident),
                span: ident.span(),
            })
        } else {
            Err(input.error(
                "expected a key: an identifier (`tags`) or a string (`\"com.example/tags\"`)",
            ))
        }
    }
}

impl Parse for Json {
    fn parse(input: ParseStream) -> syn::Result<Json> {
        if input.peek(syn::token::Bracket) {
            let content;
            bracketed!(content in input);
            let items = Punctuated::<Json, Token![,]>::parse_terminated(&content)?;
            return Ok(Json::Array(items.into_iter().collect()));
        }
        if input.peek(syn::token::Brace) {
            let content;
            braced!(content in input);
            let entries = Punctuated::<Entry, Token![,]>::parse_terminated(&content)?;
            let mut seen = std::collections::HashSet::new();
            let mut object = Vec::new();
            for Entry(key, value) in entries {
                if !seen.insert(key.value.clone()) {
                    return Err(syn::Error::new(
                        key.span,
                        format!(
                            "the key \"{}\" is given twice in this object; keep one",
                            key.value
                        ),
                    ));
                }
                object.push((key.value, value));
            }
            return Ok(Json::Object(object));
        }
        if input.peek(Token![-]) {
            input.parse::<Token![-]>()?;
            return match input.parse::<Lit>()? {
                Lit::Int(int) => Ok(Json::Number(format!("-{}", int.base10_digits()))),
                Lit::Float(float) => number(&format!("-{}", float.base10_digits()), float.span()),
                other => Err(syn::Error::new(other.span(), "expected a number after `-`")),
            };
        }
        if input.peek(Ident::peek_any) {
            let ident = input.call(Ident::parse_any)?;
            return match ident.to_string().as_str() {
                "null" => Ok(Json::Null),
                "true" => Ok(Json::Bool(true)),
                "false" => Ok(Json::Bool(false)),
                _ => Err(syn::Error::new(
                    ident.span(),
                    format!(
                        "`{ident}` is not a JSON value: a `_meta` value is a string, a number, \
                         `true`, `false`, `null`, an array `[…]` or an object `{{\"key\": …}}`"
                    ),
                )),
            };
        }
        match input.parse::<Lit>() {
            Ok(Lit::Str(lit)) => Ok(Json::String(lit.value())),
            Ok(Lit::Bool(lit)) => Ok(Json::Bool(lit.value)),
            Ok(Lit::Int(int)) => Ok(Json::Number(int.base10_digits().to_owned())),
            Ok(Lit::Float(float)) => number(float.base10_digits(), float.span()),
            Ok(other) => Err(syn::Error::new(
                other.span(),
                "not a JSON value: a `_meta` value is a string, a number, `true`, `false`, \
                 `null`, an array `[…]` or an object `{\"key\": …}`",
            )),
            Err(err) => Err(syn::Error::new(
                err.span(),
                "expected a JSON value: a string, a number, `true`, `false`, `null`, an array \
                 `[…]` or an object `{\"key\": …}`",
            )),
        }
    }
}

/// A float as JSON takes it: a finite number, written with its digits (`1.` as `1.0`, which
/// JSON needs).
fn number(digits: &str, span: Span) -> syn::Result<Json> {
    match digits.parse::<f64>() {
        Ok(value) if value.is_finite() => {
            let digits = match digits.split_once('.') {
                Some((int, rest)) if !rest.starts_with(|c: char| c.is_ascii_digit()) => {
                    format!("{int}.0{rest}")
                }
                _ => digits.to_owned(),
            };
            Ok(Json::Number(digits))
        }
        _ => Err(syn::Error::new(span, "this number has no JSON form")),
    }
}

/// `key: value` in an object.
struct Entry(Key, Json);

impl Parse for Entry {
    fn parse(input: ParseStream) -> syn::Result<Entry> {
        let key: Key = input.parse()?;
        input.parse::<Token![:]>()?;
        Ok(Entry(key, input.parse()?))
    }
}

impl Json {
    /// The value as JSON text.
    pub fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => out.push_str(n),
            Json::String(s) => write_string(s, out),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(entries) => {
                write_object(entries.iter().map(|(k, v)| (k.as_str(), v)), out)
            }
        }
    }
}

/// `{"key":value,…}`.
pub fn write_object<'a>(entries: impl Iterator<Item = (&'a str, &'a Json)>, out: &mut String) {
    out.push('{');
    for (i, (key, value)) in entries.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(key, out);
        out.push(':');
        value.write(out);
    }
    out.push('}');
}

/// A JSON string, escaped as RFC 8259 says.
pub fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(tokens: proc_macro2::TokenStream) -> String {
        let value: Json = syn::parse2(tokens).unwrap();
        let mut out = String::new();
        value.write(&mut out);
        out
    }

    #[test]
    fn literals_as_json() {
        assert_eq!(json(quote::quote!("a\"b\n")), r#""a\"b\n""#);
        assert_eq!(json(quote::quote!(-3)), "-3");
        assert_eq!(json(quote::quote!(1.5e3)), "1.5e3");
        assert_eq!(json(quote::quote!(7u8)), "7");
        assert_eq!(json(quote::quote!(2.)), "2.0");
        assert_eq!(
            json(quote::quote!({ "a/b": [true, null], c: { d: 1 } })),
            r#"{"a/b":[true,null],"c":{"d":1}}"#
        );
        assert!(syn::parse2::<Json>(quote::quote!(none)).is_err());
        assert!(syn::parse2::<Json>(quote::quote!({ a: 1, a: 2 })).is_err());
    }
}
