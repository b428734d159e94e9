//! The grammar of the URI templates (RFC 6570) that tooldef's MCP resource templates use, in a
//! crate of its own so that `tooldef` (which matches URIs against a template at run time) and
//! `tooldef-macros` (which checks a `#[resource(uri = "…")]` template at compile time) parse a
//! template with one grammar and refuse it with one message. Use it through `tooldef`
//! (`tooldef::UriTemplate`); this crate's API is not stable on its own.
//!
//! The expressions a server can match unambiguously are supported: `{var}` (one path segment or
//! part of one: no `/`, `?` or `#`), `{+var}` (reserved expansion: any characters, `/`
//! included), `{/var}` (a path segment after a `/`) and `{?a,b}` / `{&a,b}` (query parameters,
//! each optional), the query expression last.
//!
//! ```
//! use tooldef_uri_template::{Part, Template};
//!
//! let template = Template::parse("repo://{owner}{/name}{?ref}").unwrap();
//! assert_eq!(template.variables().collect::<Vec<_>>(), ["owner", "name", "ref"]);
//! assert!(template.is_optional("ref") && !template.is_optional("owner"));
//! assert!(matches!(template.parts()[0], Part::Literal(ref text) if text == "repo://"));
//!
//! let error = Template::parse("files://{+path}{name}").unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "the URI template `files://{+path}{name}` has two variables with nothing between them: \
//!      a server cannot tell where one ends"
//! );
//! ```
#![deny(missing_docs)]

use std::fmt;

/// A parsed URI template: its text and its parts, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    text: String,
    parts: Vec<Part>,
}

/// One part of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Text matched as it is. `{/var}` is a literal `/` followed by a variable.
    Literal(String),
    /// `{var}`, or `{+var}` (`reserved`: its value may hold `/`, `?` and `#`).
    Variable {
        /// The variable's name.
        name: String,
        /// Whether it is `{+var}`.
        reserved: bool,
    },
    /// `{?a,b}`, or `{&a,b}` (`continues` a query the literal text began): query parameters,
    /// each of which a URI may leave out.
    Query {
        /// The parameters' names.
        names: Vec<String>,
        /// Whether it is `{&…}`.
        continues: bool,
    },
}

/// Why a URI template cannot be used: the template and the reason, said as
/// "the URI template `…` has …".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    template: String,
    reason: String,
}

impl Error {
    /// The template as written.
    pub fn template(&self) -> &str {
        &self.template
    }

    /// What is wrong with it, as the end of a sentence whose subject is the template.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the URI template `{}` {}", self.template, self.reason)
    }
}

impl std::error::Error for Error {}

impl Template {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Template, Error> {
        let fail = |reason: String| Error {
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
                        if name.contains('*') || name.contains(':') {
                            return Err(fail(format!(
                                "has the modifier in `{name}` (`*` or `:`), which a server \
                                 cannot match; name the variable alone"
                            )));
                        }
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
                            push_literal(&mut parts, "/");
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
                    if rest[..start].contains('}') {
                        return Err(fail("has a `}` without its `{`".to_owned()));
                    }
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
        Ok(Template {
            text: text.to_owned(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its parts, in order.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// Its variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().flat_map(|part| match part {
            Part::Literal(_) => Vec::new(),
            Part::Variable { name, .. } => vec![name.as_str()],
            Part::Query { names, .. } => names.iter().map(String::as_str).collect(),
        })
    }

    /// Whether the variable `name` may be left out of a URI (a query parameter).
    pub fn is_optional(&self, name: &str) -> bool {
        self.parts.iter().any(|part| match part {
            Part::Query { names, .. } => names.iter().any(|n| n == name),
            _ => false,
        })
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Adds literal text, to the literal before it if there is one: `a{/b}` is `a/` then `b`.
fn push_literal(parts: &mut Vec<Part>, text: &str) {
    if let Some(Part::Literal(last)) = parts.last_mut() {
        last.push_str(text);
    } else {
        parts.push(Part::Literal(text.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_a_server_cannot_match_are_refused_with_the_reason() {
        for (template, words) in [
            ("a/{x", "without its `}`"),
            ("a/x}", "without its `{`"),
            ("a/x}{y}", "without its `{`"),
            ("a/{x}{y}", "nothing between them"),
            ("a/{+x}{/y}", "/"),
            ("a/{x,y}", "give each variable its own braces"),
            ("a/{#x}", "operator `#`"),
            ("a/{x}/{x}", "twice"),
            ("a{?q}/b", "must come last"),
            ("a/{}", "a name is letters"),
            ("a/{x*}", "modifier"),
            ("a/{x:3}", "modifier"),
            ("a/{x-y}", "a name is letters"),
        ] {
            match Template::parse(template) {
                Ok(parsed) if words == "/" => assert_eq!(parsed.parts().len(), 4),
                Ok(_) => panic!("{template} was accepted"),
                Err(error) => {
                    let error = error.to_string();
                    assert!(error.contains(words), "{template}: {error}");
                }
            }
        }
    }

    #[test]
    fn variables_in_order_and_queries_optional() {
        let template = Template::parse("search://books/{shelf}{?q,page}").unwrap();
        assert_eq!(
            template.variables().collect::<Vec<_>>(),
            ["shelf", "q", "page"]
        );
        assert!(template.is_optional("page"));
        assert!(!template.is_optional("shelf"));
        assert_eq!(
            template.parts(),
            [
                Part::Literal("search://books/".into()),
                Part::Variable {
                    name: "shelf".into(),
                    reserved: false
                },
                Part::Query {
                    names: vec!["q".into(), "page".into()],
                    continues: false
                },
            ]
        );
        // `{/name}` is a `/` and a variable, the `/` joined to the literal before it.
        let template = Template::parse("repo://{owner}{/name}").unwrap();
        assert_eq!(template.parts()[2], Part::Literal("/".into()));
        let template = Template::parse("repo://x{/name}").unwrap();
        assert_eq!(template.parts()[0], Part::Literal("repo://x/".into()));
    }
}
