//! URI templates (RFC 6570) as MCP resource templates use them: expanded by clients, matched by
//! the server against the URI a client reads.
//!
//! The expressions a server can match unambiguously are supported: `{var}` (one path segment or
//! part of one: no `/`, `?` or `#`), `{+var}` (reserved expansion: any characters, `/`
//! included), `{/var}` (a path segment after a `/`) and `{?a,b}` / `{&a,b}` (query parameters,
//! each optional). Values are percent-decoded.

use std::fmt;

use crate::StringArgs;

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    text: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    /// `{var}`, `{+var}` (`reserved`), `{/var}` (`segment`, with its `/`).
    Variable {
        name: String,
        reserved: bool,
    },
    /// `{?a,b}` or `{&a,b}`: the query's parameters, each optional.
    Query {
        names: Vec<String>,
        continues: bool,
    },
}

/// Why a URI template cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the URI template `{template}` {reason}")]
pub struct TemplateError {
    template: String,
    reason: String,
}

impl UriTemplate {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<UriTemplate, TemplateError> {
        let fail = |reason: String| TemplateError {
            template: text.to_owned(),
            reason,
        };
        let mut parts = Vec::new();
        let mut rest = text;
        let mut seen: Vec<String> = Vec::new();
        while !rest.is_empty() {
            match rest.find('{') {
                Some(0) => {
                    let end = rest
                        .find('}')
                        .ok_or_else(|| fail("has a `{` without its `}`".to_owned()))?;
                    let expression = &rest[1..end];
                    rest = &rest[end + 1..];
                    let (operator, names) = match expression.chars().next() {
                        Some(op @ ('+' | '/' | '?' | '&')) => (Some(op), &expression[1..]),
                        Some(op @ ('#' | '.' | ';' | '=' | ',' | '!' | '@' | '|')) => {
                            return Err(fail(format!(
                                "uses the operator `{op}`, which a server cannot match; use \
                                 `{{var}}`, `{{+var}}`, `{{/var}}` or `{{?var}}`"
                            )));
                        }
                        _ => (None, expression),
                    };
                    let names: Vec<String> = names.split(',').map(str::to_owned).collect();
                    for name in &names {
                        if name.is_empty()
                            || !name
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                        {
                            return Err(fail(format!(
                                "has the variable `{name}`: a name is letters, digits, `_` and \
                                 `.`"
                            )));
                        }
                        if name.contains('*') || name.contains(':') {
                            return Err(fail(format!("has the modifier in `{name}`")));
                        }
                        if seen.contains(name) {
                            return Err(fail(format!("names the variable `{name}` twice")));
                        }
                        seen.push(name.clone());
                    }
                    match operator {
                        Some('?' | '&') => parts.push(Part::Query {
                            names,
                            continues: operator == Some('&'),
                        }),
                        _ if names.len() > 1 => {
                            return Err(fail(format!(
                                "has `{{{expression}}}`: a server cannot tell where one value \
                                 ends and the next begins; give each variable its own braces \
                                 with a separator between them"
                            )));
                        }
                        Some('/') => {
                            parts.push(Part::Literal("/".to_owned()));
                            parts.push(Part::Variable {
                                name: names[0].clone(),
                                reserved: false,
                            });
                        }
                        _ => parts.push(Part::Variable {
                            name: names[0].clone(),
                            reserved: operator == Some('+'),
                        }),
                    }
                }
                Some(start) => {
                    push_literal(&mut parts, &rest[..start]);
                    rest = &rest[start..];
                }
                None => {
                    if rest.contains('}') {
                        return Err(fail("has a `}` without its `{`".to_owned()));
                    }
                    push_literal(&mut parts, rest);
                    rest = "";
                }
            }
        }
        for pair in parts.windows(2) {
            if matches!(pair, [Part::Variable { .. }, Part::Variable { .. }]) {
                return Err(fail(
                    "has two variables with nothing between them: a server cannot tell where \
                     one ends"
                        .to_owned(),
                ));
            }
        }
        if let Some(position) = parts
            .iter()
            .position(|part| matches!(part, Part::Query { .. }))
            && position + 1 != parts.len()
        {
            return Err(fail(
                "has something after its query expression `{?…}`, which must come last".to_owned(),
            ));
        }
        Ok(UriTemplate {
            text: text.to_owned(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().flat_map(|part| match part {
            Part::Literal(_) => Vec::new(),
            Part::Variable { name, .. } => vec![name.as_str()],
            Part::Query { names, .. } => names.iter().map(String::as_str).collect(),
        })
    }

    /// Whether the variable `name` may be left out (a query parameter).
    pub fn is_optional(&self, name: &str) -> bool {
        self.parts.iter().any(|part| match part {
            Part::Query { names, .. } => names.iter().any(|n| n == name),
            _ => false,
        })
    }

    /// The variables' values when `uri` is an expansion of this template.
    pub fn matches(&self, uri: &str) -> Option<StringArgs> {
        let mut values = StringArgs::new();
        match_parts(&self.parts, uri, &mut values).then_some(values)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn push_literal(parts: &mut Vec<Part>, text: &str) {
    if let Some(Part::Literal(last)) = parts.last_mut() {
        last.push_str(text);
    } else {
        parts.push(Part::Literal(text.to_owned()));
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
    fn templates_a_server_cannot_match_are_refused_with_the_reason() {
        for (template, words) in [
            ("a/{x", "without its `}`"),
            ("a/{x}{y}", "nothing between them"),
            ("a/{x,y}", "give each variable its own braces"),
            ("a/{#x}", "operator `#`"),
            ("a/{x}/{x}", "twice"),
            ("a{?q}/b", "must come last"),
            ("a/{}", "a name is letters"),
        ] {
            let error = UriTemplate::parse(template).unwrap_err().to_string();
            assert!(error.contains(words), "{template}: {error}");
        }
    }
}
