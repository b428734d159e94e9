//! `MergeTitles`: folding non-root `title`s into descriptions.
//!
//! schemars turns a doc comment's first line into `title` when a blank line follows it, and
//! pydantic emits `"title": "Max Results"` for every `max_results`. Models read descriptions;
//! a title that only repeats the property name is noise, and any other title is documentation
//! that belongs in the description.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::Value;

use super::describe::prepend_text;
use super::node::take;
use super::walk::{Child, for_each_subschema_mut, recording};
use crate::report::{ChangeKind, Recorder};

/// Drops every non-root `title` that repeats its property name or is already in the
/// description, and puts any other in front of the description ("<title>. <description>").
#[derive(Debug, Clone, Default)]
pub(crate) struct MergeTitles {
    pub(crate) rec: Recorder,
}

impl Transform for MergeTitles {
    fn transform(&mut self, schema: &mut Schema) {
        // The root's title is the type's, dropped by `canonicalize`; only subschemas are merged.
        self.merge_below(schema);
    }
}

recording!(MergeTitles);

impl MergeTitles {
    fn merge_below(&mut self, schema: &mut Schema) {
        for_each_subschema_mut(schema, |loc, sub| {
            // A definition's title usually repeats its name too (the Rust type's name).
            let name = match (loc.keyword, loc.child) {
                ("properties" | "$defs" | "definitions", Child::Name(name)) => Some(name),
                _ => None,
            };
            let len = self.rec.pointer.len();
            loc.push_to(&mut self.rec.pointer);
            if let Some(change) = merge_title(sub, name) {
                self.rec.record(change);
            }
            self.merge_below(sub);
            self.rec.pointer.truncate(len);
        });
    }
}

fn merge_title(schema: &mut Schema, property: Option<&str>) -> Option<ChangeKind> {
    let node = schema.as_object_mut()?;
    let Some(Value::String(title)) = node.get("title") else {
        return None;
    };
    let title = title.clone();
    take(node, "title");
    let repeats_name = property.is_some_and(|name| squash(name) == squash(&title));
    let described = node
        .get("description")
        .and_then(Value::as_str)
        .is_some_and(|d| contains_text(d, &title));
    let removed = |why: &str| ChangeKind::Removed {
        keyword: "title".to_owned(),
        why: why.to_owned(),
    };
    Some(if repeats_name {
        removed("it repeats the property's name")
    } else if described {
        removed("the description already says it")
    } else if title.trim().is_empty() {
        removed("it is empty")
    } else {
        prepend_text(node, &title);
        ChangeKind::Described {
            keywords: vec!["title".to_owned()],
            sentence: title,
        }
    })
}

/// Lowercase without `_`, `-`, spaces and a final period: `Max Results` ≈ `max_results`.
fn squash(text: &str) -> String {
    text.trim()
        .trim_end_matches('.')
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `description` already says `title` (case-insensitive, ignoring its final period).
fn contains_text(description: &str, title: &str) -> bool {
    let title = title.trim().trim_end_matches('.').to_lowercase();
    !title.is_empty() && description.to_lowercase().contains(&title)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn titles_repeating_names_are_dropped() {
        check(
            MergeTitles::default(),
            json_schema!({
                "title": "Root stays",
                "properties": {
                    "max_results": {"title": "Max Results", "type": "integer"},
                    "dry-run": {"title": "Dry run", "type": "boolean"}
                }
            }),
            json_schema!({
                "title": "Root stays",
                "properties": {
                    "max_results": {"type": "integer"},
                    "dry-run": {"type": "boolean"}
                }
            }),
        );
    }

    #[test]
    fn titles_in_description_are_dropped_others_prepended() {
        check(
            MergeTitles::default(),
            json_schema!({
                "properties": {
                    "a": {"title": "The city", "description": "The city, e.g. Paris."},
                    "b": {"title": "Search query.", "description": "Full text.", "type": "string"},
                    "c": {"title": "Only a title"},
                    "d": {"title": 3}
                }
            }),
            json_schema!({
                "properties": {
                    "a": {"description": "The city, e.g. Paris."},
                    "b": {"description": "Search query. Full text.", "type": "string"},
                    "c": {"description": "Only a title"},
                    "d": {"title": 3}
                }
            }),
        );
    }

    #[test]
    fn nested_everywhere() {
        check(
            MergeTitles::default(),
            json_schema!({
                "items": {"title": "Item", "type": "string"},
                "anyOf": [{"title": "Branch"}, true],
                "$defs": {"Point": {"title": "Point", "description": "A point."}, "P": {"title": "Point", "description": "Somewhere."}},
                "dependentSchemas": {"x": {"title": "Dep"}},
                "additionalProperties": {"title": "Value"}
            }),
            json_schema!({
                "items": {"description": "Item", "type": "string"},
                "anyOf": [{"description": "Branch"}, true],
                "$defs": {"Point": {"description": "A point."}, "P": {"description": "Point. Somewhere."}},
                "dependentSchemas": {"x": {"description": "Dep"}},
                "additionalProperties": {"description": "Value"}
            }),
        );
        check(
            MergeTitles::default(),
            json_schema!(false),
            json_schema!(false),
        );
    }
}
