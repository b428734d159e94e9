//! Doc comments: the tool description, parameter descriptions, and rustdoc's `# Arguments` list.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The text of the `///` doc comments among `attrs`, with rustdoc's one leading space per line
/// removed and the whole trimmed. `None` when there is no doc comment or it is blank.
pub fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs.iter().filter_map(doc_line).collect();
    let text = lines.join("\n");
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

fn doc_line(attr: &Attribute) -> Option<String> {
    let Meta::NameValue(nv) = &attr.meta else {
        return None;
    };
    if !nv.path.is_ident("doc") {
        return None;
    }
    let Expr::Lit(ExprLit {
        lit: Lit::Str(s), ..
    }) = &nv.value
    else {
        return None;
    };
    let line = s.value();
    // `/// text` arrives as " text"; `/** … */` blocks arrive as one multi-line string.
    Some(
        line.lines()
            .map(|l| l.strip_prefix(' ').unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// One entry of a rustdoc `# Arguments` list: `` * `city` - The city name. ``
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentDoc {
    /// The parameter the entry names.
    pub name: String,
    /// Its description, continuation lines joined with spaces.
    pub description: String,
}

/// A function's doc comment split into the tool description and its `# Arguments` entries.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FunctionDocs {
    /// The doc comment without its `# Arguments` section; `None` if nothing is left.
    pub description: Option<String>,
    /// The entries of the `# Arguments` section, in order.
    pub arguments: Vec<ArgumentDoc>,
}

/// Splits `text` into the description and the `# Arguments` section (any heading level; the
/// section ends at the next heading of the same or a higher level).
pub fn split_function_docs(text: &str) -> FunctionDocs {
    let mut kept = Vec::new();
    let mut arguments: Vec<ArgumentDoc> = Vec::new();
    let mut section_level: Option<usize> = None;
    let mut in_code_block = false;

    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code_block = !in_code_block;
        }
        let heading = (!in_code_block).then(|| heading(line)).flatten();
        if let Some(level) = section_level {
            match heading {
                Some((l, _)) if l <= level => section_level = None,
                _ => {
                    parse_argument_line(line, &mut arguments);
                    continue;
                }
            }
        }
        if let Some((level, title)) = heading
            && (title.eq_ignore_ascii_case("arguments") || title.eq_ignore_ascii_case("parameters"))
        {
            section_level = Some(level);
            continue;
        }
        // Removing a section can leave two blank lines in a row; keep one.
        if !(line.trim().is_empty() && kept.last().is_some_and(|l: &&str| l.trim().is_empty())) {
            kept.push(line);
        }
    }

    let description = kept.join("\n");
    let description = description.trim();
    FunctionDocs {
        description: (!description.is_empty()).then(|| description.to_owned()),
        arguments,
    }
}

/// `## Title` → `(2, "Title")`.
fn heading(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start();
    let level = trimmed.chars().take_while(|&c| c == '#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &trimmed[level..];
    rest.starts_with(' ').then(|| (level, rest.trim()))
}

/// Reads one line of an `# Arguments` section: a new entry (`* `name` - text`, `- name: text`)
/// or a continuation of the previous one.
fn parse_argument_line(line: &str, arguments: &mut Vec<ArgumentDoc>) {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return;
    }
    let item = trimmed
        .strip_prefix("* ")
        .or_else(|| trimmed.strip_prefix("- "))
        .or_else(|| trimmed.strip_prefix("+ "));
    if let Some(item) = item
        && let Some(entry) = parse_entry(item.trim_start())
    {
        arguments.push(entry);
        return;
    }
    if let Some(last) = arguments.last_mut() {
        if !last.description.is_empty() {
            last.description.push(' ');
        }
        last.description.push_str(trimmed);
    }
}

/// `` `city` - The city. `` or `city: The city.` → the entry.
fn parse_entry(item: &str) -> Option<ArgumentDoc> {
    let (name, rest) = if let Some(rest) = item.strip_prefix('`') {
        let end = rest.find('`')?;
        (&rest[..end], &rest[end + 1..])
    } else {
        let end = item
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(item.len());
        (&item[..end], &item[end..])
    };
    if name.is_empty() {
        return None;
    }
    let rest = rest.trim_start();
    let rest = ["-", ":", "—", "–"]
        .iter()
        .find_map(|sep| rest.strip_prefix(sep))
        .unwrap_or(rest);
    Some(ArgumentDoc {
        name: name.trim_start_matches("r#").to_owned(),
        description: rest.trim().to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_section_is_split_off() {
        let docs = split_function_docs(
            "Get the weather.\n\n# Arguments\n\n* `city` - The city\n  name.\n* `days` - How many days.\n\n# Errors\n\nWhen offline.",
        );
        assert_eq!(
            docs.description.as_deref(),
            Some("Get the weather.\n\n# Errors\n\nWhen offline.")
        );
        assert_eq!(
            docs.arguments,
            vec![
                ArgumentDoc {
                    name: "city".into(),
                    description: "The city name.".into()
                },
                ArgumentDoc {
                    name: "days".into(),
                    description: "How many days.".into()
                },
            ]
        );
    }

    #[test]
    fn colon_and_dash_entries() {
        let docs =
            split_function_docs("Do it.\n\n## Parameters\n- q: the query\n- `limit`: at most");
        assert_eq!(docs.description.as_deref(), Some("Do it."));
        assert_eq!(docs.arguments[0].name, "q");
        assert_eq!(docs.arguments[0].description, "the query");
        assert_eq!(docs.arguments[1].name, "limit");
        assert_eq!(docs.arguments[1].description, "at most");
    }

    #[test]
    fn headings_inside_code_blocks_are_text() {
        let docs = split_function_docs("Run.\n\n```sh\n# Arguments\n```");
        assert_eq!(
            docs.description.as_deref(),
            Some("Run.\n\n```sh\n# Arguments\n```")
        );
        assert!(docs.arguments.is_empty());
    }

    #[test]
    fn only_arguments_leaves_no_description() {
        let docs = split_function_docs("# Arguments\n* `a` - x");
        assert_eq!(docs.description, None);
        assert_eq!(docs.arguments.len(), 1);
    }
}
