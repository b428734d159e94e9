//! What a conversion changed in a tool: the original MCP tool compared with its converted form,
//! summed up in one line (keywords moved into descriptions, removed, added or changed, `$ref`s
//! inlined, fields dropped).

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value, json};
use tooldef::Target;

/// Keywords whose value is one schema.
const SCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];

/// Keywords whose value maps names to schemas.
const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// Keywords whose value is a list of schemas.
const SCHEMA_LIST_KEYWORDS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];

/// Keywords a target may put in another's place, with the same meaning.
const RENAMES: &[(&str, &str)] = &[("oneOf", "anyOf"), ("const", "enum")];

/// Where a target keeps a tool's parameter schema, name and description.
fn slots(target: Target) -> (&'static str, &'static str, &'static str) {
    match target {
        Target::Mcp => ("/inputSchema", "/name", "/description"),
        Target::ChatCompletions => (
            "/function/parameters",
            "/function/name",
            "/function/description",
        ),
        Target::Anthropic => ("/input_schema", "/name", "/description"),
        Target::Responses | Target::Gemini => ("/parameters", "/name", "/description"),
    }
}

/// The name `converted` carries for `target`.
pub fn converted_name(converted: &Value, target: Target) -> Option<&str> {
    converted.pointer(slots(target).1).and_then(Value::as_str)
}

/// Whether `converted` (an OpenAI tool) is strict.
pub fn is_strict(converted: &Value, target: Target) -> bool {
    let flag = match target {
        Target::ChatCompletions => converted.pointer("/function/strict"),
        _ => converted.get("strict"),
    };
    flag == Some(&Value::Bool(true))
}

/// What converting `original` into `converted` for `target` changed, in one line, or `None` when
/// the description and the schemas went through as they were. Renaming is left to the library's
/// own diagnostic; what a target's wire shape has no place for (`title`, `annotations`,
/// `outputSchema` outside MCP) is not counted.
pub fn describe(original: &Value, converted: &Value, target: Target) -> Option<String> {
    let (schema_at, _, description_at) = slots(target);
    let mut parts = Vec::new();
    let description = |tool: &Value, at: &str| {
        tool.pointer(at)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    if description(original, "/description") != description(converted, description_at) {
        parts.push("the tool's description changed".to_owned());
    }
    let empty = Value::Object(Map::new());
    let before = original.get("inputSchema").unwrap_or(&empty);
    match converted.pointer(schema_at) {
        Some(after) => {
            let mut input = Changes::default();
            input.compare(before, after);
            parts.extend(input.summary());
        }
        // Gemini: a tool without parameters has no `parameters`.
        None => {
            let takes_none = before
                .get("properties")
                .and_then(Value::as_object)
                .is_none_or(Map::is_empty);
            parts.push(if takes_none {
                "parameters left out (the tool takes none)".to_owned()
            } else {
                "parameters left out".to_owned()
            });
        }
    }
    if target == Target::Mcp {
        parts.extend(mcp_only(original, converted));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// For MCP, which keeps everything: the output schema's changes and the fields left out.
fn mcp_only(original: &Value, converted: &Value) -> Vec<String> {
    let mut parts = Vec::new();
    if let (Some(before), Some(after)) =
        (original.get("outputSchema"), converted.get("outputSchema"))
    {
        let mut output = Changes::default();
        output.compare(before, after);
        if let Some(summary) = output.summary() {
            parts.push(format!("output schema: {summary}"));
        }
    }
    let mut dropped = Vec::new();
    if let (Some(before), Some(after)) = (original.as_object(), converted.as_object()) {
        for key in before.keys().filter(|k| !after.contains_key(*k)) {
            dropped.push(format!("`{key}`"));
        }
        if let (Some(Value::Object(hints)), Some(Value::Object(kept))) =
            (before.get("annotations"), after.get("annotations"))
        {
            for key in hints.keys().filter(|k| !kept.contains_key(*k)) {
                dropped.push(format!("`annotations.{key}`"));
            }
        }
    }
    if !dropped.is_empty() {
        parts.push(format!("dropped {}", dropped.join(", ")));
    }
    parts
}

/// One line per name that more than one tool has (targets refuse two tools of one name, and
/// the converted tools get the same name).
pub fn duplicate_names(tools: &[Value]) -> Vec<String> {
    let mut seen: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut order = Vec::new();
    for (index, tool) in tools.iter().enumerate() {
        if let Some(name) = tool.get("name").and_then(Value::as_str) {
            let indexes = seen.entry(name).or_default();
            if indexes.is_empty() {
                order.push(name);
            }
            indexes.push(index);
        }
    }
    order
        .into_iter()
        .filter_map(|name| {
            let indexes = &seen[name];
            (indexes.len() > 1).then(|| {
                format!(
                    "{name}: warning: {} tools have this name (#{}); a target refuses two tools of one name",
                    indexes.len(),
                    indexes
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(", #")
                )
            })
        })
        .collect()
}

/// Keyword changes, counted over a whole schema.
#[derive(Debug, Default)]
struct Changes {
    /// Removed where the node's description changed: said in words instead.
    moved: BTreeMap<String, usize>,
    /// Removed, and not said in a description.
    removed: BTreeMap<String, usize>,
    /// Added.
    added: BTreeMap<String, usize>,
    /// Present on both sides with another value.
    changed: BTreeMap<String, usize>,
    /// One keyword in another's place (`oneOf` → `anyOf`), with what it replaced.
    renamed: BTreeMap<String, usize>,
    /// Properties the converted schema no longer has.
    removed_properties: Vec<String>,
    /// Properties the original schema did not have.
    added_properties: Vec<String>,
    /// `$ref`s replaced by the schema they point to.
    inlined_refs: usize,
    /// Optional properties made required (OpenAI strict mode).
    made_required: usize,
    /// Schemas that now accept `null` (OpenAI strict mode, for the properties made required).
    made_nullable: usize,
}

impl Changes {
    fn compare(&mut self, before: &Value, after: &Value) {
        match (before, after) {
            (Value::Object(a), Value::Object(b)) => self.compare_nodes(a, b),
            (a, b) if a == b => {}
            // `true` as `{}` and the like.
            _ => *self.changed.entry("schema".to_owned()).or_default() += 1,
        }
    }

    fn compare_nodes(&mut self, a: &Map<String, Value>, b: &Map<String, Value>) {
        if a.contains_key("$ref") && !b.contains_key("$ref") {
            // Inlined: the definition's own changes would be counted once per use; count the
            // inlining only.
            self.inlined_refs += 1;
            return;
        }
        // `anyOf: [T, null]` said another way (Gemini's `nullable`, a type list), or made so.
        if !b.contains_key("anyOf") {
            if let Some(inner) = null_union(a) {
                let (b, how) = without_null(b);
                *self
                    .renamed
                    .entry(format!("`anyOf` [T, null] → {how}"))
                    .or_default() += 1;
                return self.compare_nodes(&flattened(a, inner), &b);
            }
        }
        if !a.contains_key("anyOf") {
            if let Some(inner) = null_union(b) {
                self.made_nullable += 1;
                return self.compare_nodes(a, &flattened(b, inner));
            }
        }
        let description_changed = a.get("description") != b.get("description");
        let mut removed: Vec<&str> = a
            .keys()
            .filter(|k| !b.contains_key(*k))
            .map(String::as_str)
            .collect();
        let mut added: Vec<&str> = b
            .keys()
            .filter(|k| !a.contains_key(*k))
            .map(String::as_str)
            .collect();
        for &(from, to) in RENAMES {
            if removed.contains(&from) && added.contains(&to) {
                removed.retain(|k| *k != from);
                added.retain(|k| *k != to);
                *self
                    .renamed
                    .entry(format!("`{from}` → `{to}`"))
                    .or_default() += 1;
                if SCHEMA_LIST_KEYWORDS.contains(&from) {
                    self.compare_values(from, &a[from], &b[to]);
                }
            }
        }
        let mut moved_any = false;
        for key in removed {
            // `$defs` go with the `$ref`s inlined.
            if matches!(key, "$defs" | "definitions") {
                continue;
            }
            let words = description_changed
                && !SCHEMA_MAP_KEYWORDS.contains(&key)
                && said_in(b.get("description"), &a[key]);
            let bucket = if words {
                &mut self.moved
            } else {
                &mut self.removed
            };
            *bucket.entry(key.to_owned()).or_default() += 1;
            moved_any |= words;
        }
        for key in added {
            if key == "description" && moved_any {
                continue;
            }
            if key == "required" && !a.contains_key("required") {
                if let Some(Value::Array(names)) = b.get("required") {
                    self.made_required += names.len();
                    continue;
                }
            }
            *self.added.entry(key.to_owned()).or_default() += 1;
        }
        for (key, before) in a {
            let Some(after) = b.get(key) else { continue };
            if key == "description" && moved_any {
                continue;
            }
            self.compare_values(key, before, after);
        }
    }

    /// A keyword present on both sides.
    fn compare_values(&mut self, key: &str, before: &Value, after: &Value) {
        match (before, after) {
            (Value::Object(a), Value::Object(b)) if SCHEMA_MAP_KEYWORDS.contains(&key) => {
                for (name, schema) in a {
                    match b.get(name) {
                        Some(other) => self.compare(schema, other),
                        None if key == "properties" => self.removed_properties.push(name.clone()),
                        None => {}
                    }
                }
                if key == "properties" {
                    self.added_properties
                        .extend(b.keys().filter(|k| !a.contains_key(*k)).cloned());
                }
            }
            (Value::Array(a), Value::Array(b))
                if SCHEMA_LIST_KEYWORDS.contains(&key) && a.len() == b.len() =>
            {
                for (x, y) in a.iter().zip(b) {
                    self.compare(x, y);
                }
            }
            _ if SCHEMA_KEYWORDS.contains(&key) && before.is_object() && after.is_object() => {
                self.compare(before, after);
            }
            (a, b) if a == b => {}
            (Value::String(t), Value::Array(types))
                if key == "type" && types.as_slice() == [json!(t), json!("null")] =>
            {
                self.made_nullable += 1;
            }
            (Value::Array(values), Value::Array(with_null))
                if key == "enum" && with_null.split_last() == Some((&Value::Null, values)) => {}
            (Value::Array(before), Value::Array(after))
                if key == "required" && before.iter().all(|name| after.contains(name)) =>
            {
                self.made_required += after.iter().filter(|name| !before.contains(name)).count();
            }
            _ => *self.changed.entry(key.to_owned()).or_default() += 1,
        }
    }

    fn summary(&self) -> Option<String> {
        let mut parts = Vec::new();
        let list = |counts: &BTreeMap<String, usize>, code: bool| {
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
        };
        if self.inlined_refs > 0 {
            parts.push(format!(
                "inlined {} `$ref`{}",
                self.inlined_refs,
                if self.inlined_refs == 1 { "" } else { "s" }
            ));
        }
        if !self.moved.is_empty() {
            parts.push(format!(
                "moved into descriptions: {}",
                list(&self.moved, true)
            ));
        }
        if !self.renamed.is_empty() {
            parts.push(format!("replaced {}", list(&self.renamed, false)));
        }
        if self.made_required > 0 {
            parts.push(format!(
                "made {} optional propert{} required",
                self.made_required,
                if self.made_required == 1 { "y" } else { "ies" }
            ));
        }
        if self.made_nullable > 0 {
            parts.push(format!(
                "made {} schema{} nullable",
                self.made_nullable,
                if self.made_nullable == 1 { "" } else { "s" }
            ));
        }
        if !self.removed.is_empty() {
            parts.push(format!("removed {}", list(&self.removed, true)));
        }
        if !self.added.is_empty() {
            parts.push(format!("added {}", list(&self.added, true)));
        }
        if !self.changed.is_empty() {
            parts.push(format!("changed {}", list(&self.changed, true)));
        }
        if !self.removed_properties.is_empty() {
            parts.push(format!(
                "removed properties {}",
                quoted(&self.removed_properties)
            ));
        }
        if !self.added_properties.is_empty() {
            parts.push(format!(
                "added properties {}",
                quoted(&self.added_properties)
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// `T` of `anyOf: [T, {"type": "null"}]` (either order).
fn null_union(node: &Map<String, Value>) -> Option<&Map<String, Value>> {
    let Some(Value::Array(branches)) = node.get("anyOf") else {
        return None;
    };
    let is_null = |v: &Value| {
        v.as_object()
            .is_some_and(|o| o.len() == 1 && o.get("type") == Some(&json!("null")))
    };
    let (inner, null) = match branches.as_slice() {
        [first, second] if is_null(second) => (first, second),
        [first, second] => (second, first),
        _ => return None,
    };
    if is_null(null) && !is_null(inner) {
        inner.as_object()
    } else {
        None
    }
}

/// `node` without its `anyOf`, with the keywords of `inner` it does not have itself.
fn flattened(node: &Map<String, Value>, inner: &Map<String, Value>) -> Map<String, Value> {
    let mut flat: Map<String, Value> = node
        .iter()
        .filter(|(k, _)| *k != "anyOf")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (key, value) in inner {
        if !flat.contains_key(key) {
            flat.insert(key.clone(), value.clone());
        }
    }
    flat
}

/// `node` without what says it accepts `null`, and how it said so.
fn without_null(node: &Map<String, Value>) -> (Map<String, Value>, &'static str) {
    let mut node = node.clone();
    if node.get("nullable") == Some(&Value::Bool(true)) {
        node.remove("nullable");
        return (node, "`nullable`");
    }
    if let Some(Value::Array(types)) = node.get_mut("type") {
        if types.contains(&json!("null")) {
            types.retain(|t| t != "null");
            if let [only] = types.as_slice() {
                let only = only.clone();
                node.insert("type".to_owned(), only);
            }
            if let Some(Value::Array(values)) = node.get_mut("enum") {
                values.retain(|v| !v.is_null());
            }
            return (node, "a `type` list with `null`");
        }
    }
    (node, "`null` dropped")
}

/// Whether a description plausibly says `value`: a string or number appears in it; a boolean,
/// a list or an object is taken as said when the description changed at all.
fn said_in(description: Option<&Value>, value: &Value) -> bool {
    let description = description.and_then(Value::as_str).unwrap_or_default();
    match value {
        Value::String(text) => description.contains(text.as_str()),
        Value::Number(n) => description.contains(&n.to_string()),
        _ => true,
    }
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(before: Value, after: Value) -> Option<String> {
        let mut changes = Changes::default();
        changes.compare(&before, &after);
        changes.summary()
    }

    #[test]
    fn the_same_schema_has_no_changes() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(summary(schema.clone(), schema), None);
    }

    #[test]
    fn keywords_said_in_words_are_moved() {
        let before = json!({"type": "object", "properties": {
            "days": {"type": "integer", "minimum": 1, "default": 3, "title": "Days"},
            "unit": {"type": "string", "title": "Unit"},
            "city": {"$ref": "#/$defs/City"}
        }, "$defs": {"City": {"type": "string"}}});
        let after = json!({"type": "object", "properties": {
            "days": {"type": "integer", "description": "Days. Must be at least 1. Default: 3."},
            "unit": {"type": "string"},
            "city": {"type": "string"}
        }, "required": ["days", "city"], "additionalProperties": false});
        assert_eq!(
            summary(before, after).as_deref(),
            Some(
                "inlined 1 `$ref`; moved into descriptions: `default`, `minimum`, `title`; \
                 made 2 optional properties required; removed `title`; added `additionalProperties`"
            )
        );
    }

    #[test]
    fn renamed_keywords_are_compared_inside() {
        let before = json!({"oneOf": [{"const": "a"}, {"type": "integer", "format": "int32"}]});
        let after = json!({"anyOf": [{"enum": ["a"]}, {"type": "integer"}]});
        assert_eq!(
            summary(before, after).as_deref(),
            Some("replaced `const` → `enum`, `oneOf` → `anyOf`; removed `format`")
        );
    }

    #[test]
    fn duplicates_are_named() {
        let tools = [
            json!({"name": "a"}),
            json!({"name": "b"}),
            json!({"name": "a"}),
        ];
        assert_eq!(
            duplicate_names(&tools),
            ["a: warning: 2 tools have this name (#0, #2); a target refuses two tools of one name"]
        );
    }
}
