//! `UpgradeDialect`: a schema of an older draft, said in draft 2020-12's keywords.
//!
//! Every rendering is 2020-12 (MCP 2025-11-25: a schema without `$schema` is 2020-12), and the
//! declared `$schema` is dropped when the schema is made canonical. The keywords whose spelling
//! changed would then mean something else, or be invalid: a draft-07 tuple
//! (`"items": [A, B]`) is not valid 2020-12, draft-04's `"exclusiveMinimum": true` neither, and
//! a 2020-12 validator ignores `dependencies` and `$recursiveRef`. Each is rewritten to what
//! 2020-12 says for it (the 2020-12 release notes list these changes:
//! <https://json-schema.org/draft/2020-12/release-notes>), and recorded.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::dialect::Dialect;
use super::node::{rename, take};
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// Rewrites the keywords of `from` that 2020-12 spells differently.
#[derive(Debug, Clone, Default)]
pub(crate) struct UpgradeDialect {
    pub(crate) from: Dialect,
    pub(crate) rec: Recorder,
}

recording!(UpgradeDialect);

impl UpgradeDialect {
    /// Upgrades a schema written in `from`.
    pub(crate) fn new(from: Dialect) -> Self {
        UpgradeDialect {
            from,
            rec: Recorder::default(),
        }
    }
}

impl Transform for UpgradeDialect {
    fn transform(&mut self, schema: &mut Schema) {
        if self.from == Dialect::Draft202012 {
            return;
        }
        if let Some(node) = schema.as_object_mut() {
            upgrade(node, self.from, &mut self.rec);
        }
        transform_subschemas_tracked(self, schema);
    }
}

fn rewritten(rec: &mut Recorder, dialect: Dialect, from: &str, to: &str) {
    rec.record(ChangeKind::Rewritten {
        from: format!("{dialect}'s {from}"),
        to: to.to_owned(),
    });
}

fn upgrade(node: &mut Map<String, Value>, dialect: Dialect, rec: &mut Recorder) {
    // Tuples: `items` as an array became `prefixItems`, and `additionalItems` became `items`.
    if matches!(node.get("items"), Some(Value::Array(_))) {
        rename(node, "items", "prefixItems");
        let rest = if rename(node, "additionalItems", "items") {
            " and `additionalItems` as `items`"
        } else {
            ""
        };
        rewritten(
            rec,
            dialect,
            "`items` list",
            &format!("`prefixItems`{rest} (2020-12's tuple keywords)"),
        );
    } else if take(node, "additionalItems").is_some() {
        rec.record(ChangeKind::Removed {
            keyword: "additionalItems".to_owned(),
            why: format!(
                "{dialect} ignores it beside an `items` schema, and 2020-12 has no such keyword"
            ),
        });
    }
    if matches!(node.get("dependencies"), Some(Value::Object(_))) {
        split_dependencies(node, dialect, rec);
    }
    if rename(node, "$recursiveRef", "$ref") {
        rewritten(rec, dialect, "`$recursiveRef`", "`$ref`");
    }
    if take(node, "$recursiveAnchor").is_some() {
        rec.record(ChangeKind::Removed {
            keyword: "$recursiveAnchor".to_owned(),
            why: "its `$recursiveRef`s are plain `$ref`s in 2020-12".to_owned(),
        });
    }
    for (flag, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if let Some(Value::Bool(exclusive)) = node.get(flag) {
            let exclusive = *exclusive;
            if exclusive && node.get(bound).is_some_and(Value::is_number) {
                take(node, flag);
                rename(node, bound, flag);
                rewritten(
                    rec,
                    dialect,
                    &format!("`{flag}: true` beside `{bound}`"),
                    &format!("`{flag}` with the bound as its value"),
                );
            } else {
                take(node, flag);
                rec.record(ChangeKind::Removed {
                    keyword: flag.to_owned(),
                    why: format!("{dialect}'s `{flag}: {exclusive}` without a `{bound}` to qualify says nothing"),
                });
            }
        }
    }
}

/// `dependencies` → `dependentRequired` (the entries that list names) and `dependentSchemas`
/// (the entries that are schemas), where `dependencies` was.
fn split_dependencies(node: &mut Map<String, Value>, dialect: Dialect, rec: &mut Recorder) {
    let Some(at) = node.keys().position(|k| k == "dependencies") else {
        return;
    };
    let Some(Value::Object(entries)) = take(node, "dependencies") else {
        return;
    };
    let (mut names, mut schemas) = (Map::new(), Map::new());
    for (key, value) in entries {
        if value.is_array() {
            names.insert(key, value);
        } else {
            schemas.insert(key, value);
        }
    }
    let mut at = at;
    for (keyword, entries) in [("dependentRequired", names), ("dependentSchemas", schemas)] {
        if entries.is_empty() {
            continue;
        }
        match node.get_mut(keyword) {
            Some(Value::Object(existing)) => {
                for (key, value) in entries {
                    existing.entry(key).or_insert(value);
                }
            }
            _ => {
                node.shift_insert(
                    at.min(node.len()),
                    keyword.to_owned(),
                    Value::Object(entries),
                );
                at += 1;
            }
        }
    }
    rewritten(
        rec,
        dialect,
        "`dependencies`",
        "`dependentRequired` (lists of names) and `dependentSchemas` (schemas)",
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn draft_07_keywords_become_2020_12() {
        let t = check(
            UpgradeDialect::new(Dialect::Draft7),
            json_schema!({"type": "object", "properties": {
                "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false},
                "list": {"type": "array", "items": {"type": "string"}, "additionalItems": false}
            }, "dependencies": {"a": ["b"], "c": {"required": ["d"]}}, "required": []}),
            json_schema!({"type": "object", "properties": {
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false},
                "list": {"type": "array", "items": {"type": "string"}}
            }, "dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"required": ["d"]}}, "required": []}),
        );
        let at: Vec<&str> = t.rec.changes().iter().map(|c| c.pointer.as_str()).collect();
        assert_eq!(at, ["", "/properties/pair", "/properties/list"]);
    }

    #[test]
    fn draft_04_exclusive_flags_and_2019_09_recursion() {
        check(
            UpgradeDialect::new(Dialect::Draft4),
            json_schema!({"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false}),
            json_schema!({"type": "number", "exclusiveMinimum": 0, "maximum": 9}),
        );
        check(
            UpgradeDialect::new(Dialect::Draft201909),
            json_schema!({"$recursiveAnchor": true, "type": "object", "properties": {"n": {"$recursiveRef": "#"}}}),
            json_schema!({"type": "object", "properties": {"n": {"$ref": "#"}}}),
        );
        let same = json_schema!({"type": "array", "items": [true]});
        check(
            UpgradeDialect::new(Dialect::Draft202012),
            same.clone(),
            same,
        );
    }
}
