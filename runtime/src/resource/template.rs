//! URI templates (RFC 6570) as MCP resource templates use them: expanded by clients, matched by
//! the server against the URI a client reads.
//!
//! The expressions a server can match unambiguously are supported: `{var}` (one path segment or
//! part of one: no `/`, `?` or `#`), `{+var}` (reserved expansion: any characters, `/`
//! included), `{/var}` (a path segment after a `/`) and `{?a,b}` / `{&a,b}` (query parameters,
//! each optional). Values are percent-decoded.

use std::fmt;

use tooldef_uri_template::{Part, Template};

use crate::StringArgs;

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate(Template);

/// Why a URI template cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TemplateError(tooldef_uri_template::Error);

impl UriTemplate {
    /// Parses `text`, with the grammar `#[resource]` checks templates with at compile time (one
    /// crate, `tooldef-uri-template`, holds it for both).
    pub fn parse(text: &str) -> Result<UriTemplate, TemplateError> {
        Template::parse(text)
            .map(UriTemplate)
            .map_err(TemplateError)
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Its variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.0.variables()
    }

    /// Whether the variable `name` may be left out (a query parameter).
    pub fn is_optional(&self, name: &str) -> bool {
        self.0.is_optional(name)
    }

    /// The variables' values when `uri` is an expansion of this template.
    pub fn matches(&self, uri: &str) -> Option<StringArgs> {
        let mut values = StringArgs::new();
        match_parts(self.0.parts(), uri, &mut values).then_some(values)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Matches `parts` against all of `uri`, trying the shortest value of each variable first;
/// a template's few parts make the backtracking cheap.
fn match_parts(parts: &[Part], uri: &str, values: &mut StringArgs) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return uri.is_empty();
    };
    match first {
        Part::Literal(literal) => uri
            .strip_prefix(literal.as_str())
            .is_some_and(|after| match_parts(rest, after, values)),
        Part::Variable { name, reserved } => {
            let ends = uri.char_indices().map(|(i, _)| i).skip(1);
            for end in ends.chain([uri.len()]) {
                let value = &uri[..end];
                if value.is_empty() {
                    return false;
                }
                if !reserved && value.contains(['/', '?', '#']) {
                    return false;
                }
                let mut tried = values.clone();
                tried.insert(name.clone(), decode(value));
                if match_parts(rest, &uri[end..], &mut tried) {
                    *values = tried;
                    return true;
                }
            }
            false
        }
        Part::Query { names, continues } => {
            let query = match uri.chars().next() {
                None => return true,
                Some('?') if !continues => &uri[1..],
                Some('&') if *continues => &uri[1..],
                _ => return false,
            };
            for pair in query.split('&').filter(|pair| !pair.is_empty()) {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                let key = decode(key);
                if !names.contains(&key) {
                    return false;
                }
                values.insert(key, decode(value));
            }
            true
        }
    }
}

/// Percent-decodes `text`; an escape that is not one stays as it is.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = bytes
                .get(i + 1..i + 3)
                .and_then(|hex| std::str::from_utf8(hex).ok())
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matched(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(template)
            .unwrap()
            .matches(uri)
            .map(|args| {
                args.iter()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect()
            })
    }

    #[test]
    fn simple_variables_match_within_a_segment() {
        assert_eq!(
            matched("test://template/{id}/data", "test://template/123/data"),
            Some(vec![("id".into(), "123".into())])
        );
        assert_eq!(
            matched("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(
            matched("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            matched("users/{name}", "users/J%C3%BCrgen"),
            Some(vec![("name".into(), "Jürgen".into())])
        );
    }

    #[test]
    fn reserved_variables_take_slashes_and_queries_are_optional() {
        assert_eq!(
            matched("file:///{+path}", "file:///etc/hosts"),
            Some(vec![("path".into(), "etc/hosts".into())])
        );
        assert_eq!(
            matched("search://books{?q,page}", "search://books?q=rust&page=2"),
            Some(vec![
                ("page".into(), "2".into()),
                ("q".into(), "rust".into())
            ])
        );
        assert_eq!(
            matched("search://books{?q,page}", "search://books"),
            Some(vec![])
        );
        assert_eq!(matched("search://books{?q}", "search://books?x=1"), None);
        assert_eq!(
            matched("repo://{owner}{/name}", "repo://rust-lang/rust"),
            Some(vec![
                ("name".into(), "rust".into()),
                ("owner".into(), "rust-lang".into())
            ])
        );
    }

    #[test]
    fn the_shared_grammar_says_why_a_template_is_refused() {
        let error = UriTemplate::parse("a/{x}{y}").unwrap_err().to_string();
        assert_eq!(
            error,
            "the URI template `a/{x}{y}` has two variables with nothing between them: a server \
             cannot tell where one ends"
        );
    }
}
