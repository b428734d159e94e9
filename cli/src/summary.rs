//! A rendering's report in the words `lint` and `convert` print: one line that counts the
//! changes by kind, and the notes that need reading one by one.

use std::collections::BTreeMap;

use tooldef::report::{Change, ChangeKind, Report};

/// What a report says, grouped for one line.
#[derive(Debug, Default)]
pub struct Summary {
    described: BTreeMap<String, usize>,
    said: BTreeMap<String, usize>,
    removed: BTreeMap<String, usize>,
    rewritten: BTreeMap<String, usize>,
    added: BTreeMap<String, usize>,
    made_required: usize,
    made_nullable: usize,
    inlined: usize,
    cut: usize,
    renamed: Option<String>,
    shortened: Option<(usize, usize)>,
    /// The reasons the tool is not strict, each with where.
    pub not_strict: Vec<String>,
    /// What was kept although the target may ignore it, each with where.
    pub kept: Vec<String>,
}

impl Summary {
    /// Groups every change of `report`.
    pub fn of(report: &Report) -> Summary {
        let mut summary = Summary::default();
        for change in report.changes() {
            summary.add(change);
        }
        summary
    }

    fn add(&mut self, change: &Change) {
        let count = |map: &mut BTreeMap<String, usize>, key: &str| {
            *map.entry(key.to_owned()).or_default() += 1;
        };
        match &change.kind {
            ChangeKind::Described { keywords, .. } => {
                for keyword in keywords {
                    count(&mut self.described, last_segment(keyword));
                }
            }
            ChangeKind::Said { keyword, .. } => count(&mut self.said, keyword),
            ChangeKind::Removed { keyword, .. } => count(&mut self.removed, last_segment(keyword)),
            ChangeKind::Rewritten { from, to } => {
                count(&mut self.rewritten, &format!("{from} → {to}"));
            }
            ChangeKind::Added { keyword, .. } => count(&mut self.added, keyword),
            ChangeKind::MadeRequired { nullable, .. } => {
                self.made_required += 1;
                self.made_nullable += usize::from(*nullable);
            }
            ChangeKind::Inlined { .. } => self.inlined += 1,
            ChangeKind::RecursionCut { .. } => self.cut += 1,
            ChangeKind::Renamed { to, .. } => self.renamed = Some(to.clone()),
            ChangeKind::DescriptionShortened {
                from_chars,
                to_chars,
                ..
            } => self.shortened = Some((*from_chars, *to_chars)),
            ChangeKind::NotStrict { why } => self.not_strict.push(placed(change, why)),
            ChangeKind::Kept { .. } => self.kept.push(change.to_string()),
            // A kind this version of the CLI does not know yet: said as the library words it.
            _ => count(&mut self.rewritten, &change.kind.to_string()),
        }
    }

    /// The changes other than the reasons for not being strict and what was kept, in one
    /// line; `None` when there are none.
    pub fn rewrites(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(name) = &self.renamed {
            parts.push(format!("renamed to `{name}`"));
        }
        if let Some((from, to)) = self.shortened {
            parts.push(format!(
                "description shortened from {from} to {to} characters"
            ));
        }
        if self.inlined > 0 {
            parts.push(format!(
                "inlined {}",
                plural(self.inlined, "`$ref`", "`$ref`s")
            ));
        }
        if self.cut > 0 {
            parts.push(format!(
                "described {} where it recurs",
                plural(self.cut, "recursive type", "recursive types")
            ));
        }
        if !self.described.is_empty() {
            parts.push(format!(
                "moved into descriptions: {}",
                counted(&self.described, true)
            ));
        }
        if !self.said.is_empty() {
            parts.push(format!(
                "kept and said in descriptions: {}",
                counted(&self.said, true)
            ));
        }
        if !self.rewritten.is_empty() {
            parts.push(format!("replaced {}", counted(&self.rewritten, false)));
        }
        if self.made_required > 0 {
            parts.push(format!(
                "made {} required ({} of them nullable)",
                plural(
                    self.made_required,
                    "optional property",
                    "optional properties"
                ),
                self.made_nullable
            ));
        }
        if !self.removed.is_empty() {
            parts.push(format!("removed {}", counted(&self.removed, true)));
        }
        if !self.added.is_empty() {
            parts.push(format!("added {}", counted(&self.added, true)));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// `required/ghost` → `required`: a keyword's own name, for counting.
fn last_segment(keyword: &str) -> &str {
    keyword.split('/').next().unwrap_or(keyword)
}

/// A reason with where it applies.
fn placed(change: &Change, why: &str) -> String {
    if change.pointer.is_empty() {
        format!("the root: {why}")
    } else {
        format!("`{}`: {why}", change.pointer)
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `` `a` ×2, `b` `` from counts by key, in key order.
fn counted(counts: &BTreeMap<String, usize>, code: bool) -> String {
    counts
        .iter()
        .map(|(key, &n)| {
            let key = if code {
                format!("`{key}`")
            } else {
                key.clone()
            };
            if n > 1 { format!("{key} ×{n}") } else { key }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tooldef::Target;
    use tooldef::convert::{ConvertOptions, convert};

    #[test]
    fn a_report_in_one_line() {
        let tools = json!([{"name": "fs.read", "description": "Read.", "inputSchema": {
            "type": "object",
            "properties": {
                "days": {"type": "integer", "minimum": 1, "default": 3, "title": "Days"},
                "city": {"$ref": "#/$defs/City"},
                "tags": {"type": "object", "additionalProperties": {"type": "string"}}
            },
            "required": ["city"],
            "$defs": {"City": {"type": "string"}}
        }}]);
        let chat = convert(&tools, Target::ChatCompletions, &ConvertOptions::default()).unwrap();
        let summary = Summary::of(&chat.tools[0].rendering.report);
        let line = summary.rewrites().unwrap();
        for part in [
            "renamed to `fs_read`",
            "inlined 1 `$ref`",
            "`default`",
            "removed `$defs`, `title`",
            "added `additionalProperties`",
        ] {
            assert!(line.contains(part), "{part} in {line}");
        }
        assert_eq!(
            summary.not_strict,
            [
                "`/properties/tags`: an open map (`additionalProperties` is a schema) cannot be strict"
            ]
        );
    }
}
