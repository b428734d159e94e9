//! `DescribeUnsupported`: keywords a target cannot carry become sentences in the description.
//!
//! Dropping a constraint silently lets the model send values the tool then refuses; a sentence
//! ("Must be between 1 and 100 characters long.") keeps the model informed, and the runtime
//! still validates against the canonical schema. Sentences are added in one fixed keyword
//! order, so the same schema always renders the same text.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::describe::{
    UNIQUE_ITEMS, all_of_sentence, append_sentences, conditional_sentence, const_sentence,
    contains_sentence, count_sentence, defaults_under, dependent_required_sentences,
    dependent_schemas_sentences, discriminator_sentence, examples_sentence, exclusive_sentences,
    format_sentence, generic_sentence, length_sentence, map_sentence, multiple_of_sentence,
    nested_default_sentences, not_sentence, pattern_properties_sentences, pattern_sentence,
    property_names_sentence, range_sentence, tuple_sentence, unevaluated_sentence,
};
use super::formats::format_type;
use super::node::{has_type, take};
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// Keywords removed without a sentence: they address schema authors and tools, not the model.
const SILENT: &[&str] = &[
    "$comment",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$schema",
    "$vocabulary",
    "readOnly",
    "writeOnly",
];

/// Removes the listed keywords wherever they appear and says what they meant in the node's
/// description (see `describe.rs` for the wording). `prefixItems` is rewritten rather than only
/// described: `items` becomes the tuple's item schemas (`anyOf` when they differ) and
/// `minItems`/`maxItems` its length, with a sentence giving the order.
#[derive(Debug, Clone, Default)]
pub(crate) struct DescribeUnsupported {
    /// The keywords to describe and remove.
    pub keywords: &'static [&'static str],
    /// The `format` values that stay when `format` is listed.
    pub kept_formats: &'static [&'static str],
    /// When set, every keyword *not* in this list is described and removed too (for targets
    /// that refuse unknown keywords, like Gemini).
    pub allowed: Option<&'static [&'static str]>,
    /// Describe a `pattern` that uses lookaround or backreferences even when `pattern` is not
    /// listed (OpenAI strict mode refuses them: "regex lookaround is not supported").
    pub plain_patterns_only: bool,
    /// What was described and removed.
    pub rec: Recorder,
}

impl DescribeUnsupported {
    /// Describes `keywords`, keeping the formats in `kept_formats`, and (with `allowed`) every
    /// keyword outside `allowed`.
    pub(crate) fn new(
        keywords: &'static [&'static str],
        kept_formats: &'static [&'static str],
        allowed: Option<&'static [&'static str]>,
    ) -> Self {
        DescribeUnsupported {
            keywords,
            kept_formats,
            allowed,
            plain_patterns_only: false,
            rec: Recorder::default(),
        }
    }
}

impl Transform for DescribeUnsupported {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            self.describe(node);
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(DescribeUnsupported);

/// The sentences said for one node, each with the keywords it replaces.
#[derive(Default)]
struct Said(Vec<(Vec<String>, String)>);

impl Said {
    fn say(&mut self, keywords: &[&str], sentence: String) {
        self.0
            .push((keywords.iter().map(|k| (*k).to_owned()).collect(), sentence));
    }

    fn say_all(&mut self, keywords: &[&str], sentences: impl IntoIterator<Item = String>) {
        for sentence in sentences {
            self.say(keywords, sentence);
        }
    }
}

impl DescribeUnsupported {
    fn listed(&self, keyword: &str) -> bool {
        self.keywords.contains(&keyword) || self.allowed.is_some_and(|a| !a.contains(&keyword))
    }

    fn take(&self, node: &mut Map<String, Value>, keyword: &str) -> Option<Value> {
        if self.listed(keyword) {
            take(node, keyword)
        } else {
            None
        }
    }

    /// Whether the node's `format` is one the target keeps, on a node of the type it describes
    /// (Gemini refuses `int64` on a string, `date-time` on an integer, and a format on a node
    /// without a type).
    fn format_kept(&self, node: &Map<String, Value>) -> bool {
        match node.get("format") {
            Some(Value::String(f)) => {
                self.kept_formats.contains(&f.as_str()) && has_type(node, format_type(f))
            }
            _ => false,
        }
    }

    /// Whether the node has a `pattern` the target refuses although it takes plain ones.
    fn refused_pattern(&self, node: &Map<String, Value>) -> bool {
        self.plain_patterns_only
            && node
                .get("pattern")
                .and_then(Value::as_str)
                .is_some_and(|p| !is_plain_pattern(p))
    }

    fn describe(&mut self, node: &mut Map<String, Value>) {
        // Every step below only touches listed keywords, and most nodes have none: one pass over
        // their few keys saves some thirty hashed lookups that would all miss.
        let pattern_check = self.plain_patterns_only;
        if !node
            .keys()
            .any(|k| self.listed(k) || (pattern_check && k == "pattern"))
        {
            return;
        }
        let format_kept = self.format_kept(node);
        let mut out = Said::default();
        self.strings(node, format_kept, &mut out);
        self.numbers(node, &mut out);
        if let Some(value) = self.take(node, "const") {
            out.say(&["const"], const_sentence(&value));
        }
        self.arrays(node, &mut out);
        self.objects(node, &mut out);
        self.logic(node, &mut out);
        if let Some(examples) = self.take(node, "examples") {
            out.say_all(&["examples"], examples_sentence(&examples));
        }
        // OpenAPI's singular `example` holds one value (which may itself be an array).
        if let Some(example) = self.take(node, "example") {
            out.say_all(
                &["example"],
                examples_sentence(&Value::Array(vec![example])),
            );
        }
        if let Some(Value::Bool(true)) = self.take(node, "deprecated") {
            out.say(&["deprecated"], "Deprecated.".to_owned());
        }
        for keyword in SILENT {
            if self.take(node, keyword).is_some() {
                self.rec.record(ChangeKind::Removed {
                    keyword: (*keyword).to_owned(),
                    why: "it addresses schema authors and tools, not the model".to_owned(),
                });
            }
        }
        let rest: Vec<String> = node
            .keys()
            .filter(|k| self.listed(k) && !(format_kept && *k == "format"))
            .cloned()
            .collect();
        for keyword in rest {
            if let Some(value) = take(node, &keyword) {
                out.say(&[&keyword], generic_sentence(&keyword, &value));
                // A keyword holding subschemas (`contentSchema`, a `oneOf` kept beside an
                // `anyOf`, a nested `$defs`): its compact JSON shows their defaults, but not as
                // defaults.
                out.say_all(&[&keyword], defaults_under(&keyword, &value, false));
            }
        }
        let sentences: Vec<String> = out.0.iter().map(|(_, s)| s.clone()).collect();
        append_sentences(node, &sentences);
        for (keywords, sentence) in out.0 {
            self.rec
                .record(ChangeKind::Described { keywords, sentence });
        }
    }

    fn strings(&self, node: &mut Map<String, Value>, format_kept: bool, out: &mut Said) {
        if !format_kept {
            match self.take(node, "format") {
                Some(Value::String(f)) => out.say(&["format"], format_sentence(&f)),
                Some(other) => out.say(&["format"], generic_sentence("format", &other)),
                None => {}
            }
        }
        let pattern = if self.refused_pattern(node) {
            take(node, "pattern")
        } else {
            self.take(node, "pattern")
        };
        if let Some(pattern) = pattern {
            out.say(&["pattern"], pattern_sentence(&pattern));
        }
        let min = self.take(node, "minLength");
        let max = self.take(node, "maxLength");
        out.say_all(
            &present(&[("minLength", &min), ("maxLength", &max)]),
            length_sentence(min.as_ref(), max.as_ref()),
        );
    }

    fn numbers(&self, node: &mut Map<String, Value>, out: &mut Said) {
        let min = self.take(node, "minimum");
        let max = self.take(node, "maximum");
        out.say_all(
            &present(&[("minimum", &min), ("maximum", &max)]),
            range_sentence(min.as_ref(), max.as_ref()),
        );
        // Draft-04 spelled exclusive bounds as booleans next to minimum/maximum.
        let numeric = |v: Option<Value>, keyword: &str, out: &mut Said| match v {
            Some(n @ Value::Number(_)) => Some(n),
            Some(other) => {
                out.say(&[keyword], generic_sentence(keyword, &other));
                None
            }
            None => None,
        };
        let xmin = numeric(self.take(node, "exclusiveMinimum"), "exclusiveMinimum", out);
        let xmax = numeric(self.take(node, "exclusiveMaximum"), "exclusiveMaximum", out);
        if let Some(xmin) = &xmin {
            out.say_all(&["exclusiveMinimum"], exclusive_sentences(Some(xmin), None));
        }
        if let Some(xmax) = &xmax {
            out.say_all(&["exclusiveMaximum"], exclusive_sentences(None, Some(xmax)));
        }
        if let Some(step) = self.take(node, "multipleOf") {
            out.say(&["multipleOf"], multiple_of_sentence(&step));
        }
    }

    fn arrays(&mut self, node: &mut Map<String, Value>, out: &mut Said) {
        let mut exact_tuple = false;
        if self.listed("prefixItems")
            && let Some((sentence, exact, defaults)) = rewrite_tuple(node)
        {
            self.rec.record(ChangeKind::Rewritten {
                from: "`prefixItems` (a tuple)".to_owned(),
                to: "`items` with the length in `minItems`/`maxItems`".to_owned(),
            });
            out.say(&["prefixItems"], sentence);
            out.say_all(&["prefixItems"], defaults);
            exact_tuple = exact;
        }
        let min = self.take(node, "minItems");
        let max = self.take(node, "maxItems");
        // An exact tuple's sentence already gives its length.
        if !exact_tuple {
            out.say_all(
                &present(&[("minItems", &min), ("maxItems", &max)]),
                count_sentence(min.as_ref(), max.as_ref(), "item", "items"),
            );
        }
        match self.take(node, "uniqueItems") {
            Some(Value::Bool(true)) => out.say(&["uniqueItems"], UNIQUE_ITEMS.to_owned()),
            Some(Value::Bool(false)) | None => {}
            Some(other) => out.say(&["uniqueItems"], generic_sentence("uniqueItems", &other)),
        }
        if let Some(contains) = self.take(node, "contains") {
            let min = take(node, "minContains");
            let max = take(node, "maxContains");
            out.say(
                &["contains"],
                contains_sentence(&contains, min.as_ref(), max.as_ref()),
            );
            out.say_all(
                &["contains"],
                nested_default_sentences("contains", &contains),
            );
        }
    }

    fn objects(&self, node: &mut Map<String, Value>, out: &mut Said) {
        let min = self.take(node, "minProperties");
        let max = self.take(node, "maxProperties");
        out.say_all(
            &present(&[("minProperties", &min), ("maxProperties", &max)]),
            count_sentence(min.as_ref(), max.as_ref(), "entry", "entries"),
        );
        let has_properties = node
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        // Each sentence below says what the removed keyword accepts; the defaults written in
        // its subschemas, which no such sentence shows, are said after it (a map's sentence
        // says its values' own default: "For each value, Default: …").
        if let Some(values) = self.take(node, "additionalProperties") {
            out.say_all(
                &["additionalProperties"],
                map_sentence(&values, has_properties),
            );
            out.say_all(
                &["additionalProperties"],
                defaults_under("additionalProperties", &values, true),
            );
        }
        if let Some(patterns) = self.take(node, "patternProperties") {
            out.say_all(
                &["patternProperties"],
                pattern_properties_sentences(&patterns),
            );
            out.say_all(
                &["patternProperties"],
                defaults_under("patternProperties", &patterns, true),
            );
        }
        if let Some(names) = self.take(node, "propertyNames") {
            out.say(&["propertyNames"], property_names_sentence(&names));
            out.say_all(
                &["propertyNames"],
                nested_default_sentences("propertyNames", &names),
            );
        }
        for keyword in ["unevaluatedProperties", "unevaluatedItems"] {
            if let Some(value) = self.take(node, keyword) {
                out.say_all(
                    &[keyword],
                    unevaluated_sentence(keyword, &value, has_properties),
                );
                // `unevaluatedProperties`' sentence is a map's, which says its own default.
                out.say_all(
                    &[keyword],
                    defaults_under(keyword, &value, keyword == "unevaluatedProperties"),
                );
            }
        }
        if let Some(deps) = self.take(node, "dependentRequired") {
            out.say_all(&["dependentRequired"], dependent_required_sentences(&deps));
        }
        if let Some(deps) = self.take(node, "dependentSchemas") {
            out.say_all(&["dependentSchemas"], dependent_schemas_sentences(&deps));
            out.say_all(
                &["dependentSchemas"],
                defaults_under("dependentSchemas", &deps, false),
            );
        }
        if let Some(deps) = self.take(node, "dependencies") {
            // Draft-07: arrays of names and schemas mixed; both read as their 2020-12 forms.
            out.say_all(&["dependencies"], dependent_required_sentences(&deps));
            out.say_all(
                &["dependencies"],
                defaults_under("dependencies", &deps, false),
            );
        }
    }

    fn logic(&self, node: &mut Map<String, Value>, out: &mut Said) {
        if let Some(not) = self.take(node, "not") {
            out.say(&["not"], not_sentence(&not));
            out.say_all(&["not"], nested_default_sentences("not", &not));
        }
        let condition = self.take(node, "if");
        let then = self.take(node, "then");
        let otherwise = self.take(node, "else");
        out.say_all(
            &present(&[("if", &condition), ("then", &then), ("else", &otherwise)]),
            conditional_sentence(condition.as_ref(), then.as_ref(), otherwise.as_ref()),
        );
        // The sentence says what each branch accepts; the defaults the author wrote in them
        // are said apart, so that none is lost with the keyword.
        for (keyword, branch) in [("if", &condition), ("then", &then), ("else", &otherwise)] {
            if let Some(branch) = branch {
                out.say_all(&[keyword], nested_default_sentences(keyword, branch));
            }
        }
        if let Some(all_of) = self.take(node, "allOf") {
            out.say(&["allOf"], all_of_sentence(&all_of));
        }
        if let Some(discriminator) = self.take(node, "discriminator") {
            out.say(&["discriminator"], discriminator_sentence(&discriminator));
        }
    }
}

/// The keywords of `taken` that were present.
fn present<'k>(taken: &[(&'k str, &Option<Value>)]) -> Vec<&'k str> {
    taken
        .iter()
        .filter(|(_, value)| value.is_some())
        .map(|(keyword, _)| *keyword)
        .collect()
}

/// Whether a regular expression uses none of what OpenAI strict mode refuses: lookahead
/// (`(?=`, `(?!`), lookbehind (`(?<=`, `(?<!`) and backreferences (`\1`…`\9`, `\k<name>`).
pub(crate) fn is_plain_pattern(pattern: &str) -> bool {
    let bytes = pattern.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                if let Some(&next) = bytes.get(i + 1)
                    && (next.is_ascii_digit() && next != b'0' || next == b'k')
                {
                    return false;
                }
                i += 2;
                continue;
            }
            b'(' if pattern[i..].starts_with("(?=")
                || pattern[i..].starts_with("(?!")
                || pattern[i..].starts_with("(?<=")
                || pattern[i..].starts_with("(?<!") =>
            {
                return false;
            }
            _ => {}
        }
        i += 1;
    }
    true
}

/// Replaces `prefixItems` (a tuple) by `items` (the distinct item schemas) and the length as
/// `minItems`/`maxItems`; returns the sentence giving the order, and whether the length is
/// exact, and the defaults of the item schemas that `items` does not keep (an open tuple's
/// `items` is `{}`).
fn rewrite_tuple(node: &mut Map<String, Value>) -> Option<(String, bool, Vec<String>)> {
    let at = node.keys().position(|k| k == "prefixItems")?;
    let tuple = match take(node, "prefixItems")? {
        Value::Array(tuple) => tuple,
        other => return Some((generic_sentence("prefixItems", &other), false, Vec::new())),
    };
    let len = tuple.len();
    let rest = take(node, "items");
    let exact = rest == Some(Value::Bool(false))
        || node.get("maxItems").and_then(Value::as_u64) == Some(len as u64);
    let open_rest = matches!(rest, None | Some(Value::Bool(true)));
    let mut distinct: Vec<Value> = Vec::new();
    let extra = rest
        .iter()
        .filter(|r| !exact && !matches!(r, Value::Bool(_)));
    for item in tuple.iter().chain(extra) {
        if !distinct.contains(item) {
            distinct.push(item.clone());
        }
    }
    let items = match distinct.len() {
        // An open tuple takes further items of any type: `{}` says so, and the targets that
        // describe tuples refuse an array without `items` ("array schema missing items",
        // "items: missing field"). Strict mode cannot take `{}`, and says why.
        _ if open_rest && !exact => Some(Value::Object(Map::new())),
        0 => None,
        1 => distinct.pop(),
        _ => Some(serde_json::json!({ "anyOf": distinct })),
    };
    if let Some(items) = items {
        node.shift_insert(at.min(node.len()), "items".into(), items);
    }
    if exact {
        node.insert("minItems".into(), len.into());
        node.insert("maxItems".into(), len.into());
    }
    let defaults = if open_rest && !exact {
        let each = tuple.iter().enumerate();
        each.flat_map(|(i, item)| nested_default_sentences(&format!("prefixItems/{i}"), item))
            .collect()
    } else {
        Vec::new()
    };
    let rest = rest.filter(|_| !exact);
    Some((
        tuple_sentence(&tuple, exact, rest.as_ref()),
        exact,
        defaults,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    const ALL: &[&str] = &[
        "format",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "const",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
        "minProperties",
        "maxProperties",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "not",
        "if",
        "then",
        "else",
        "allOf",
        "examples",
        "example",
        "$comment",
        "x-custom",
    ];

    fn all() -> DescribeUnsupported {
        DescribeUnsupported::new(ALL, &["date-time"], None)
    }

    #[test]
    fn string_keywords() {
        check(
            all(),
            json_schema!({"properties": {
                "e": {"type": "string", "format": "email", "minLength": 1, "maxLength": 5},
                "s": {"description": "Slug", "type": "string", "pattern": "^[a-z]+$", "minLength": 4, "maxLength": 4},
                "t": {"type": "string", "format": "date-time", "minLength": 3},
                "u": {"type": "string", "format": "x-weird", "maxLength": 1}
            }}),
            json_schema!({"properties": {
                "e": {"description": "Must be an email address. Must be between 1 and 5 characters long.", "type": "string"},
                "s": {"description": "Slug. Must match the regular expression `^[a-z]+$`. Must be exactly 4 characters long.", "type": "string"},
                "t": {"description": "Must be at least 3 characters long.", "type": "string", "format": "date-time"},
                "u": {"description": "Format: x-weird. Must be at most 1 character long.", "type": "string"}
            }}),
        );
    }

    #[test]
    fn number_keywords() {
        check(
            all(),
            json_schema!({"anyOf": [
                {"type": "integer", "minimum": 1, "maximum": 14, "description": "Days."},
                {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 100, "multipleOf": 5},
                {"type": "number", "minimum": 0, "exclusiveMinimum": true},
                {"type": "string", "const": "x"}
            ]}),
            json_schema!({"anyOf": [
                {"type": "integer", "description": "Days. Must be between 1 and 14."},
                {"description": "Must be greater than 0. Must be less than 100. Must be a multiple of 5.", "type": "number"},
                {"description": "Must be at least 0. (exclusiveMinimum: true)", "type": "number"},
                {"description": "Must be `x`.", "type": "string"}
            ]}),
        );
    }

    #[test]
    fn only_listed_keywords_go() {
        let narrow = DescribeUnsupported::new(&["minLength"], &[], None);
        check(
            narrow,
            json_schema!({"type": "string", "minLength": 2, "maxLength": 3, "format": "email"}),
            json_schema!({"description": "Must be at least 2 characters long.", "type": "string", "maxLength": 3, "format": "email"}),
        );
    }

    #[test]
    fn tuples_become_items() {
        check(
            all(),
            json_schema!({"properties": {
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 2, "maxItems": 2},
                "same": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "string"}], "items": false},
                "open": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "boolean"}, "minItems": 1},
                "loose": {"type": "array", "prefixItems": [{"type": "string"}]}
            }}),
            json_schema!({"properties": {
                "pair": {"description": "A list of exactly 2 items: first a string, then an integer.", "type": "array",
                         "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
                "same": {"description": "A list of exactly 2 items: first a string, then a string.", "type": "array",
                         "items": {"type": "string"}},
                "open": {"description": "A list starting with a string; any further items are a boolean. Must have at least 1 item.",
                         "type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "boolean"}]}},
                "loose": {"description": "A list starting with a string; any further items are any value.",
                          "type": "array", "items": {}}
            }}),
        );
    }

    #[test]
    fn tuple_bounds_survive_when_not_listed() {
        let only_tuples = DescribeUnsupported::new(&["prefixItems"], &[], None);
        check(
            only_tuples,
            json_schema!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 2, "maxItems": 2}),
            json_schema!({"description": "A list of exactly 2 items: first a string, then an integer.", "type": "array",
                          "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}, "minItems": 2, "maxItems": 2}),
        );
    }

    #[test]
    fn array_and_object_keywords() {
        check(
            all(),
            json_schema!({"properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": true, "contains": {"type": "string", "pattern": "^a"}},
                "map": {"type": "object", "additionalProperties": {"type": "integer"}, "propertyNames": {"pattern": "^[a-z]+$"}, "minProperties": 1},
                "pp": {"type": "object", "properties": {"a": {}}, "patternProperties": {"^x-": {"type": "string"}}, "unevaluatedProperties": false}
            }}),
            json_schema!({"properties": {
                "tags": {"description": "Must have at least 1 item. Items must be unique. Must contain at least one item that is a string matching `^a`.",
                         "type": "array", "items": {"type": "string"}},
                "map": {"description": "Must have at least 1 entry. An object mapping any key to an integer. Keys must match the regular expression `^[a-z]+$`.",
                        "type": "object"},
                "pp": {"description": "Keys matching `^x-` map to a string. No other keys are allowed.", "type": "object", "properties": {"a": {}}}
            }}),
        );
    }

    #[test]
    fn logic_keywords_and_fallbacks() {
        check(
            all(),
            json_schema!({
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "dependentRequired": {"a": ["b"]},
                "dependentSchemas": {"a": {"required": ["c"]}},
                "not": {"type": "null"},
                "if": {"type": "object"}, "then": {"required": ["a"]},
                "allOf": [{"required": ["a"]}],
                "examples": [{"a": "x"}],
                "example": [1],
                "$comment": "for authors",
                "x-custom": [1]
            }),
            json_schema!({
                "description": "If `a` is present, `b` must be present too. If `a` is present, the object must also match `{\"required\":[\"c\"]}`. Must not be null. If the value is an object, it must be a value matching `{\"required\":[\"a\"]}`. Must match all of these schemas: `{\"required\":[\"a\"]}`. Example: {\"a\":\"x\"}. Example: [1]. (x-custom: [1])",
                "type": "object",
                "properties": {"a": {"type": "string"}}
            }),
        );
    }

    #[test]
    fn allowed_list_removes_everything_else() {
        let gemini = DescribeUnsupported::new(
            &[],
            &["date-time"],
            Some(&["type", "description", "properties", "format", "deprecated"]),
        );
        check(
            gemini,
            json_schema!({"type": "object", "properties": {
                "a": {"type": "string", "format": "date-time", "readOnly": true, "x-foo": 1, "deprecated": true}
            }}),
            json_schema!({"type": "object", "properties": {
                "a": {"description": "(x-foo: 1)", "type": "string", "format": "date-time", "deprecated": true}
            }}),
        );
    }

    #[test]
    fn nested_and_odd_inputs() {
        check(
            all(),
            json_schema!({
                "$defs": {"D": {"minLength": 1}},
                "contentSchema": {"maxLength": 2},
                "items": [{"pattern": "a"}],
                "enum": [{"minLength": 1}],
                "prefixItems": 3,
                "minLength": "odd"
            }),
            json_schema!({
                "description": "Must be at least \"odd\" characters long. (prefixItems: 3)",
                "$defs": {"D": {"description": "Must be at least 1 character long."}},
                "contentSchema": {"description": "Must be at most 2 characters long."},
                "items": [{"description": "Must match the regular expression `a`."}],
                "enum": [{"minLength": 1}]
            }),
        );
        check(all(), json_schema!(true), json_schema!(true));
    }
}
