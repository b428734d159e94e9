//! The checks of a prompt and a resource that a tool does not have: which `#[arg]` keys apply to
//! an argument read from a string, and a resource's URI: a fixed one, or a template (parsed by
//! the grammar the server matches URIs with) whose variables are exactly the function's
//! parameters.

use tooldef_uri_template::{Part, Template};

use crate::ast::{Item, Param, ParamKind};
use crate::attr::{Kind, Spanned};
use crate::ctxt::Ctxt;
use crate::valid::{argument_word, option_inner, pat_name};

/// Runs the checks of a `#[prompt]` or a `#[resource]` (the shared ones are `valid::check`'s).
pub fn check(cx: &Ctxt, item: &Item) {
    if let Some(name) = &item.attrs.name
        && name.value.trim().is_empty()
    {
        cx.error_at(
            name.span,
            format!(
                "a {0}'s name cannot be empty: clients list it and ask for it by name; give one, \
                 or leave `name` out to use the function's",
                item.kind.name()
            ),
        );
    }
    for param in &item.params {
        if let ParamKind::Field(_) = param.kind {
            check_string_param(cx, item.kind, param);
        }
    }
    if item.kind == Kind::Resource {
        check_resource(cx, item);
    }
}

/// What a tool's argument may say and one read from a string may not.
fn check_string_param(cx: &Ctxt, kind: Kind, param: &Param) {
    let noun = kind.name();
    let what = argument_word(kind);
    for attr in &param.forwarded {
        cx.error_spanned_by(
            attr,
            format!(
                "a {noun}'s {what} is read from its string with `FromStr`, not deserialised \
                 with serde, and has no schema: this attribute would have no effect, so remove \
                 it (to name the {what} otherwise, write #[arg(rename = \"…\")])"
            ),
        );
    }
    if let Some(header) = &param.arg.header {
        cx.error_at(
            header.span,
            format!(
                "`header` mirrors a tool's argument into an HTTP header of `tools/call`; a \
                 {noun}'s {what}s are not sent that way: remove it"
            ),
        );
    }
    if let Some(deprecated) = &param.arg.deprecated {
        cx.error_at(
            deprecated.span,
            format!(
                "`deprecated` marks a tool's argument in its schema; MCP has no way to mark a \
                 {noun}'s {what} deprecated: say so in its description instead"
            ),
        );
    }
    if kind == Kind::Resource {
        // MCP lists a template with one description for the whole of it.
        let described = param
            .doc_span
            .or(param.arg.description.as_ref().map(|d| d.span));
        if let Some(span) = described {
            cx.error_at(
                span,
                "MCP describes a resource template as a whole, not variable by variable, so \
                 this description would go nowhere: describe the variables in the resource's \
                 doc comment (and use a `//` comment here)",
            );
        }
    }
}

/// A resource's `uri`: there, a URI, and a template whose variables and the function's
/// parameters are one and the same.
fn check_resource(cx: &Ctxt, item: &Item) {
    let Some(uri) = &item.attrs.uri else {
        cx.error_at(
            proc_macro2::Span::call_site(),
            "#[resource] needs the URI it is read at: `#[resource(uri = \"docs://readme\")]`, or \
             a template whose variables are the function's parameters, \
             `#[resource(uri = \"users://{id}/profile\")]`",
        );
        return;
    };
    let fields: Vec<(&Param, String, Option<proc_macro2::Span>)> = item
        .params
        .iter()
        .filter_map(|param| {
            let (name, source) = param.wire_name()?;
            Some((param, name, source.span()))
        })
        .collect();
    // A template is recognised by its expressions; a lone `}` is a template's mistake too.
    if !uri.value.contains(['{', '}']) {
        if let Some(why) = uri_problem(&uri.value) {
            cx.error_at(uri.span, why);
        }
        for (param, name, _) in &fields {
            cx.error_spanned_by(
                &param.pat,
                format!(
                    "the resource at the fixed URI `{}` has no variables, so `{name}` would have \
                     nothing to be read from: make the URI a template with the variable in it \
                     (`{}/{{{name}}}`), or remove the parameter",
                    uri.value,
                    uri.value.trim_end_matches('/')
                ),
            );
        }
        return;
    }
    let template = match Template::parse(&uri.value) {
        Ok(template) => template,
        Err(error) => {
            cx.error_at(uri.span, error);
            return;
        }
    };
    // A template that starts with a variable (`{+url}`) leaves the scheme to its value.
    let starts_literal = matches!(template.parts().first(), Some(Part::Literal(_)));
    if (starts_literal || uri.value.contains(char::is_whitespace))
        && let Some(why) = uri_problem(&uri.value)
    {
        cx.error_at(uri.span, why);
    }
    if let Some(size) = &item.attrs.size {
        cx.error_at(
            size.span,
            "`size` is the size of one resource's contents, and a template stands for many \
             resources (MCP's resource templates have no size): remove it",
        );
    }
    let variables: Vec<&str> = template.variables().collect();
    for variable in &variables {
        if fields.iter().any(|(_, name, _)| name == variable) {
            continue;
        }
        let (ty, written) = if template.is_optional(variable) {
            ("Option<String>", format!("{{?{variable}}}"))
        } else {
            ("String", format!("{{{variable}}}"))
        };
        // A variable may be named `user.id`, which a parameter cannot.
        let parameter = if syn::parse_str::<syn::Ident>(variable).is_ok() {
            format!("`{variable}: {ty}`")
        } else {
            format!(
                "`#[arg(rename = \"{variable}\")] {}: {ty}`",
                variable.replace('.', "_")
            )
        };
        cx.error_at(
            uri.span,
            format!(
                "the URI template `{}` has the variable `{written}`, which no parameter of `{}` \
                 takes: add a parameter {parameter} (or of any type that implements `FromStr`), \
                 or write #[arg(rename = \"{variable}\")] on the one that takes it",
                uri.value, item.func.sig.ident
            ),
        );
    }
    for (param, name, renamed) in &fields {
        if !variables.contains(&name.as_str()) {
            not_a_variable(cx, param, name, *renamed, uri, &variables);
        } else if template.is_optional(name) {
            if option_inner(&param.ty).is_none() && param.arg.default.is_none() {
                cx.error_spanned_by(
                    &param.ty,
                    format!(
                        "`{name}` is the query variable `{{?{name}}}`, which a URI may leave \
                         out: take `Option<{}>`, or give a default with #[arg(default = …)]",
                        crate::ast::as_written(&param.ty)
                    ),
                );
            }
        } else {
            let always = format!(
                "the variable `{{{name}}}` is in every URI the template matches (only a query \
                 variable, `{{?{name}}}`, may be left out)"
            );
            if let Some(inner) = option_inner(&param.ty) {
                cx.error_spanned_by(
                    &param.ty,
                    format!(
                        "{always}, so `{}` would never be `None`: take `{}`",
                        pat_name(param),
                        crate::ast::as_written(inner)
                    ),
                );
            }
            if let Some(default) = &param.arg.default {
                cx.error_at(
                    default.span,
                    format!("{always}, so this default would never apply: remove it"),
                );
            }
        }
    }
}

/// A parameter that is none of the template's variables.
fn not_a_variable(
    cx: &Ctxt,
    param: &Param,
    name: &str,
    renamed: Option<proc_macro2::Span>,
    uri: &Spanned<String>,
    variables: &[&str],
) {
    let listed: Vec<String> = variables.iter().map(|v| format!("`{v}`")).collect();
    let close = variables
        .iter()
        .map(|v| (v, strsim::levenshtein(v, name)))
        .filter(|&(_, distance)| distance <= 2)
        .min_by_key(|&(_, distance)| distance);
    let fix = match close {
        Some((variable, _)) => format!(
            "if it is `{variable}`, name it so (or write #[arg(rename = \"{variable}\")]); \
             otherwise add `{{{name}}}` to the template"
        ),
        None => format!(
            "add `{{{name}}}` to the template, or name the variable this parameter takes with \
             #[arg(rename = \"…\")]"
        ),
    };
    let listed = match listed.as_slice() {
        [] => "it has none".to_owned(),
        [one] => format!("its only variable is {one}"),
        _ => format!("its variables are {}", listed.join(", ")),
    };
    let message = format!(
        "`{name}` is not a variable of the URI template `{}` ({listed}), and a resource's \
         parameters are read from the URI: {fix}",
        uri.value
    );
    match renamed {
        Some(span) => cx.error_at(span, message),
        None => cx.error_spanned_by(&param.pat, message),
    }
}

/// Why `uri` (a fixed URI, or the literal start of a template) is not an absolute URI, which
/// MCP's `uri` is (`"format": "uri"`): a scheme, then the rest, without spaces.
fn uri_problem(uri: &str) -> Option<String> {
    if uri.trim().is_empty() {
        return Some(
            "the resource's URI is empty: give the URI clients read it at, such as \
             `docs://readme`"
                .to_owned(),
        );
    }
    if uri.contains(char::is_whitespace) {
        return Some(format!(
            "`{uri}` is not a URI: it contains a space, which a URI writes as `%20`"
        ));
    }
    let scheme = uri.split_once(':').map(|(scheme, _)| scheme);
    let valid = scheme.is_some_and(|scheme| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    (!valid).then(|| {
        format!(
            "`{uri}` is not a URI: it does not start with a scheme (`docs://readme`, \
             `file:///srv/notes.md`, `https://…`), and MCP names a resource by an absolute URI"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::uri_problem;

    #[test]
    fn uris_need_a_scheme_and_no_spaces() {
        for ok in [
            "docs://readme",
            "file:///etc/hosts",
            "urn:isbn:0451450523",
            "x-app+v1.a://b",
        ] {
            assert!(uri_problem(ok).is_none(), "{ok}");
        }
        assert!(uri_problem("").unwrap().contains("empty"));
        assert!(uri_problem("readme").unwrap().contains("scheme"));
        assert!(uri_problem("/docs/readme").unwrap().contains("scheme"));
        assert!(uri_problem("1docs://x").unwrap().contains("scheme"));
        assert!(uri_problem("docs://read me").unwrap().contains("space"));
    }
}
