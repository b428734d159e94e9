//! Turning schema keywords into sentences a model reads, and adding them to descriptions.
//!
//! Wording matters: models follow "Must be between 1 and 14." far better than `(minimum=1)`.
//! Every sentence ends with a period and starts with a capital, so sentences can be joined with
//! a space. Values in running text: strings in backticks without quotes (`celsius`), other
//! values as compact JSON; where the JSON type matters (defaults, examples) strings keep their
//! quotes.

use schemars::Schema;
use serde_json::{Map, Value};

use super::node::{ANNOTATIONS, type_names};
use super::walk::for_each_subschema;

/// `text` trimmed, with a period added unless it already ends a sentence.
pub(crate) fn ensure_period(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() || text.ends_with(['.', '!', '?', '…']) {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

/// Two descriptions as one: `first` then `second`, each kept whole; equal texts are kept once.
pub(crate) fn join_texts(first: &str, second: &str) -> String {
    let (first, second) = (first.trim(), second.trim());
    if first.is_empty() || first == second {
        second.to_owned()
    } else if second.is_empty() {
        first.to_owned()
    } else {
        format!("{} {second}", ensure_period(first))
    }
}

/// The node's description as text (a non-string description, which is odd, as compact JSON).
fn description_text(node: &Map<String, Value>) -> Option<String> {
    node.get("description").map(|d| match d {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// Whether `text` holds `sentence` as a whole sentence (at its start, its end, or between two
/// others).
fn holds_sentence(text: &str, sentence: &str) -> bool {
    let text = text.trim();
    text == sentence
        || text.match_indices(sentence).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + sentence.len()..].chars().next();
            matches!(before, None | Some(' ' | '\n')) && matches!(after, None | Some(' ' | '\n'))
        })
}

/// Whether the node's description already says `sentence`.
pub(crate) fn says(node: &Map<String, Value>, sentence: &str) -> bool {
    node.get("description")
        .and_then(Value::as_str)
        .is_some_and(|d| holds_sentence(d, sentence))
}

/// Appends sentences to the node's description, creating it (as the first key) when missing.
/// A sentence the description already says is not repeated, so rendering a rendering again
/// changes nothing. "Default: …" stays the last sentence: a description that already ends with
/// the sentence of the node's `default` (an MCP rendering, which keeps the keyword and says it,
/// converted again) gets the new sentences before it, where they stand in a rendering of the
/// canonical schema, which says the default last (`DescribeDefaults`).
pub(crate) fn append_sentences(node: &mut Map<String, Value>, sentences: &[String]) {
    let existing = description_text(node);
    let said = |s: &&str| existing.as_deref().is_some_and(|e| holds_sentence(e, s));
    let fresh: Vec<&str> = sentences
        .iter()
        .map(String::as_str)
        .filter(|s| !said(s))
        .collect();
    if fresh.is_empty() {
        return;
    }
    let added = fresh.join(" ");
    match existing {
        Some(existing) => {
            let default = node.get("default").map(default_sentence);
            let text = match default
                .as_deref()
                .and_then(|last| Some((before_sentence(&existing, last)?, last)))
            {
                Some((before, last)) => join_texts(&join_texts(before, &added), last),
                None => join_texts(&existing, &added),
            };
            node.insert("description".into(), text.into());
        }
        None => {
            node.shift_insert(0, "description".into(), added.into());
        }
    }
}

/// What comes before `sentence` in `text`, when `text` ends with it as a whole sentence.
pub(crate) fn before_sentence<'a>(text: &'a str, sentence: &str) -> Option<&'a str> {
    let before = text.trim_end().strip_suffix(sentence)?;
    (before.is_empty() || before.ends_with([' ', '\n'])).then(|| before.trim_end())
}

/// Puts `text` in front of the node's description (creating it when missing).
pub(crate) fn prepend_text(node: &mut Map<String, Value>, text: &str) {
    match description_text(node) {
        Some(existing) => {
            node.insert("description".into(), join_texts(text, &existing).into());
        }
        None => {
            node.shift_insert(0, "description".into(), text.trim().into());
        }
    }
}

/// A value in running text: strings in backticks without quotes, anything else as JSON.
pub(crate) fn inline_value(value: &Value) -> String {
    match value {
        Value::String(s) if s.is_empty() => "an empty string".to_owned(),
        Value::String(s) => format!("`{s}`"),
        other => other.to_string(),
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn is_one(value: &Value) -> bool {
    value.as_f64() == Some(1.0)
}

/// "Must be between 1 and 14." / "Must be at least 1." / "Must be at most 14."
pub(crate) fn range_sentence(min: Option<&Value>, max: Option<&Value>) -> Option<String> {
    Some(match (min, max) {
        (Some(min), Some(max)) if min == max => format!("Must be exactly {min}."),
        (Some(min), Some(max)) => format!("Must be between {min} and {max}."),
        (Some(min), None) => format!("Must be at least {min}."),
        (None, Some(max)) => format!("Must be at most {max}."),
        (None, None) => return None,
    })
}

/// "Must be greater than 0." / "Must be less than 100."
pub(crate) fn exclusive_sentences(min: Option<&Value>, max: Option<&Value>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(min) = min {
        out.push(format!("Must be greater than {min}."));
    }
    if let Some(max) = max {
        out.push(format!("Must be less than {max}."));
    }
    out
}

/// "Must be a multiple of 5."
pub(crate) fn multiple_of_sentence(step: &Value) -> String {
    format!("Must be a multiple of {step}.")
}

/// "Must be between 1 and 100 characters long." and its one-sided and exact forms.
pub(crate) fn length_sentence(min: Option<&Value>, max: Option<&Value>) -> Option<String> {
    let unit = |n: &Value| if is_one(n) { "character" } else { "characters" };
    Some(match (min, max) {
        (Some(min), Some(max)) if min == max => {
            format!("Must be exactly {min} {} long.", unit(min))
        }
        (Some(min), Some(max)) => format!("Must be between {min} and {max} characters long."),
        (Some(min), None) => format!("Must be at least {min} {} long.", unit(min)),
        (None, Some(max)) => format!("Must be at most {max} {} long.", unit(max)),
        (None, None) => return None,
    })
}

/// "Must have between 1 and 5 items." (or entries), with correct singular and plural.
pub(crate) fn count_sentence(
    min: Option<&Value>,
    max: Option<&Value>,
    singular: &str,
    plural: &str,
) -> Option<String> {
    let unit = |n: &Value| if is_one(n) { singular } else { plural };
    Some(match (min, max) {
        (Some(min), Some(max)) if min == max => {
            format!("Must have exactly {min} {}.", unit(min))
        }
        (Some(min), Some(max)) => format!("Must have between {min} and {max} {plural}."),
        (Some(min), None) => format!("Must have at least {min} {}.", unit(min)),
        (None, Some(max)) => format!("Must have at most {max} {}.", unit(max)),
        (None, None) => return None,
    })
}

/// "Must match the regular expression `^[a-z]+$`."
pub(crate) fn pattern_sentence(pattern: &Value) -> String {
    match pattern {
        Value::String(p) => format!("Must match the regular expression `{p}`."),
        other => format!("Must match the regular expression {other}."),
    }
}

/// A `format` in words: "Must be an email address.", or "Format: <f>." for formats without a
/// phrase of their own.
pub(crate) fn format_sentence(format: &str) -> String {
    match format_phrase(format) {
        Some(phrase) => format!("Must be {phrase}."),
        None => format!("Format: {format}."),
    }
}

/// What a value of a `format` is, in words a model knows, with an example where the spelling
/// matters: the one table behind the descriptions ("Must be a date (YYYY-MM-DD).") and the
/// errors ("must be a date (YYYY-MM-DD), got …"). chrono's `NaiveTime` and `NaiveDateTime`
/// are `partial-time` and `partial-date-time` in schemars, names no model knows.
pub(crate) fn format_phrase(format: &str) -> Option<&'static str> {
    Some(match format {
        "email" => "an email address",
        "uri" => "a URI",
        "uri-reference" => "a URI reference",
        "uuid" => "a UUID",
        "date" => "a date (YYYY-MM-DD)",
        "date-time" => "a date and time (RFC 3339, e.g. 2024-01-31T09:30:00Z)",
        "time" => "a time with its offset (RFC 3339, e.g. 09:30:00Z)",
        "partial-time" => "a time of day without a time zone (HH:MM:SS, e.g. 09:30:00)",
        "partial-date-time" => {
            "a date and time without a time zone (YYYY-MM-DDTHH:MM:SS, e.g. 2024-01-31T09:30:00)"
        }
        "duration" => "a duration (ISO 8601, e.g. P3D)",
        "ipv4" => "an IPv4 address",
        "ipv6" => "an IPv6 address",
        "ip" => "an IP address (IPv4 or IPv6)",
        "hostname" => "a hostname",
        "idn-email" => "an email address (non-ASCII characters allowed)",
        "idn-hostname" => "a hostname (non-ASCII characters allowed)",
        // OpenAPI's numeric formats, met on strings (Google's APIs write 64-bit integers as
        // strings) or on a number where a target keeps no format.
        "int32" => "a 32-bit integer",
        "int64" => "a 64-bit integer",
        "float" => "a 32-bit floating-point number",
        "double" => "a 64-bit floating-point number",
        _ => return None,
    })
}

/// "Items must be unique."
pub(crate) const UNIQUE_ITEMS: &str = "Items must be unique.";

/// "Must be `x`." (a `const`).
pub(crate) fn const_sentence(value: &Value) -> String {
    format!("Must be {}.", inline_value(value))
}

/// "Must be one of: 1, 2, 3." (an `enum` a target cannot carry); one value reads as a `const`.
pub(crate) fn enum_sentence(values: &[Value]) -> String {
    match values {
        [one] => const_sentence(one),
        _ => {
            let listed: Vec<String> = values.iter().map(inline_value).collect();
            format!("Must be one of: {}.", listed.join(", "))
        }
    }
}

/// "Default: 3." — strings keep their quotes so `"3"` and `3` stay distinguishable.
pub(crate) fn default_sentence(value: &Value) -> String {
    format!("Default: {value}.")
}

/// The defaults written inside a subschema that is removed and said in words (`not`, `if`,
/// `then`, `else`): its sentence shows what the subschema accepts, not its annotations, so
/// each default is said on its own, with where it was: ``Default given in `then`: "aaa".``,
/// ``Default given in `else/properties/x`: 3.``.
pub(crate) fn nested_default_sentences(keyword: &str, schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(schema) = <&Schema>::try_from(schema) else {
        return out;
    };
    let mut at = keyword.to_owned();
    collect_defaults(schema, &mut at, &mut out);
    out
}

/// The defaults written in the subschemas a removed keyword held (`value`, as it stood in its
/// node), whatever the keyword (`unevaluatedItems`, `dependentSchemas`, `contentSchema`, a
/// nested `$defs`…), each said as ``Default given in `dependentSchemas/a/properties/b`: 3.``.
/// With `below_own`, the defaults of the keyword's own subschemas are left to the keyword's
/// sentence (a map's "For each value, Default: …") and only deeper ones are said.
pub(crate) fn defaults_under(keyword: &str, value: &Value, below_own: bool) -> Vec<String> {
    let mut out = Vec::new();
    // The keyword alone in a node: the walk then says which of its values are subschemas, and
    // where, as it does for every transform.
    let holder = Schema::from(Map::from_iter([(keyword.to_owned(), value.clone())]));
    for_each_subschema(&holder, |loc, sub| {
        let mut at = String::new();
        loc.push_to(&mut at);
        let mut at = at.split_off(1);
        if below_own {
            for_each_subschema(sub, |loc, deeper| {
                let len = at.len();
                loc.push_to(&mut at);
                collect_defaults(deeper, &mut at, &mut out);
                at.truncate(len);
            });
        } else {
            collect_defaults(sub, &mut at, &mut out);
        }
    });
    out
}

fn collect_defaults(schema: &Schema, at: &mut String, out: &mut Vec<String>) {
    if let Some(value) = schema.get("default") {
        out.push(format!("Default given in `{at}`: {value}."));
    }
    for_each_subschema(schema, |loc, sub| {
        let len = at.len();
        loc.push_to(at);
        collect_defaults(sub, at, out);
        at.truncate(len);
    });
}

/// "Its `kind` property says which of the forms it is." (a `discriminator` naming only its
/// `propertyName`, as one is left once its `mapping` led nowhere); the generic fallback for any
/// other.
pub(crate) fn discriminator_sentence(value: &Value) -> String {
    match value.get("propertyName").and_then(Value::as_str) {
        Some(name) if value.get("mapping").is_none() => {
            format!("Its `{name}` property says which of the forms it is.")
        }
        _ => generic_sentence("discriminator", value),
    }
}

/// "Example: \"Paris\"." / "Examples: 1, 2."
pub(crate) fn examples_sentence(examples: &Value) -> Option<String> {
    match examples {
        Value::Array(list) if list.is_empty() => None,
        Value::Array(list) if list.len() == 1 => Some(format!("Example: {}.", list[0])),
        Value::Array(list) => {
            let shown: Vec<String> = list.iter().map(Value::to_string).collect();
            Some(format!("Examples: {}.", shown.join(", ")))
        }
        other => Some(format!("Example: {other}.")),
    }
}

/// The fallback for a keyword without a sentence of its own: "(<keyword>: <compact JSON>)".
pub(crate) fn generic_sentence(keyword: &str, value: &Value) -> String {
    format!("({keyword}: {value})")
}

/// A type name with its article: "a string", "an integer", "null".
fn a_type(ty: &str) -> String {
    match ty {
        "null" => "null".to_owned(),
        "integer" | "object" | "array" => format!("an {ty}"),
        other => format!("a {other}"),
    }
}

/// A type name in the plural: "strings", "integers".
fn plural_type(ty: &str) -> String {
    match ty {
        "null" => "nulls".to_owned(),
        other => format!("{other}s"),
    }
}

/// A short noun phrase for what a schema accepts: "a string", "an array of integers",
/// "a string or null", "one of `a`, `b`", "any value"; compact JSON when nothing shorter fits.
pub(crate) fn short(schema: &Value) -> String {
    let node = match schema {
        Value::Bool(true) => return "any value".to_owned(),
        Value::Bool(false) => return "nothing".to_owned(),
        Value::Object(node) => node,
        other => return format!("`{other}`"),
    };
    if node.keys().all(|k| ANNOTATIONS.contains(&k.as_str())) {
        return "any value".to_owned();
    }
    if let Some(value) = node.get("const") {
        return format!("exactly {}", inline_value(value));
    }
    if let Some(Value::Array(values)) = node.get("enum") {
        let listed: Vec<String> = values.iter().map(inline_value).collect();
        return format!("one of {}", listed.join(", "));
    }
    let types = type_names(node);
    if !types.is_empty() {
        let parts: Vec<String> = types.iter().map(|t| typed_short(t, node)).collect();
        return parts.join(" or ");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = node.get(key) {
            let parts: Vec<String> = branches.iter().map(short).collect();
            return parts.join(" or ");
        }
    }
    if let Some(Value::String(reference)) = node.get("$ref") {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        return format!("a `{name}`");
    }
    format!("a value matching `{schema}`")
}

/// [`short`] for one type of a node.
fn typed_short(ty: &str, node: &Map<String, Value>) -> String {
    match ty {
        "array" => match node.get("items").and_then(Value::as_object).map(type_names) {
            Some(item_types) if item_types.len() == 1 => {
                format!("an array of {}", plural_type(item_types[0]))
            }
            _ => "an array".to_owned(),
        },
        "string" => match node.get("pattern") {
            Some(Value::String(p)) => format!("a string matching `{p}`"),
            _ => "a string".to_owned(),
        },
        other => a_type(other),
    }
}

/// A map's value schema in words: "An object mapping any key to a string." — or, when the
/// object also declares properties, "Other keys are allowed, each mapping to a string.".
/// `additionalProperties: false` needs no sentence.
pub(crate) fn map_sentence(values: &Value, has_properties: bool) -> Option<String> {
    if values == &Value::Bool(false) {
        return None;
    }
    let target = short(values);
    let sentence = if has_properties {
        if target == "any value" {
            "Other keys are allowed, with any value.".to_owned()
        } else {
            format!("Other keys are allowed, each mapping to {target}.")
        }
    } else {
        format!("An object mapping any key to {target}.")
    };
    Some(sentence + &value_default(values))
}

/// The default of a value schema that is being described away (a map's values), which would
/// otherwise be lost with it: " For each value, Default: 1.5."
fn value_default(values: &Value) -> String {
    values
        .get("default")
        .map(|d| format!(" For each value, {}", default_sentence(d)))
        .unwrap_or_default()
}

/// "Keys matching `^x-` map to a string." for each entry of `patternProperties`.
pub(crate) fn pattern_properties_sentences(patterns: &Value) -> Vec<String> {
    match patterns {
        Value::Object(entries) => entries
            .iter()
            .map(|(p, s)| {
                format!(
                    "Keys matching `{p}` map to {}.{}",
                    short(s),
                    value_default(s)
                )
            })
            .collect(),
        other => vec![generic_sentence("patternProperties", other)],
    }
}

/// "Keys must match the regular expression `^[a-z]+$`." or "Each key must be <short>."
pub(crate) fn property_names_sentence(names: &Value) -> String {
    if let Value::Object(node) = names {
        let only_pattern = node
            .keys()
            .all(|k| k == "pattern" || (k == "type" && node.get("type") == Some(&"string".into())));
        if let (true, Some(Value::String(p))) = (only_pattern, node.get("pattern")) {
            return format!("Keys must match the regular expression `{p}`.");
        }
    }
    format!("Each key must be {}.", short(names))
}

/// `unevaluatedProperties` / `unevaluatedItems` in words.
pub(crate) fn unevaluated_sentence(
    keyword: &str,
    value: &Value,
    has_properties: bool,
) -> Option<String> {
    match (keyword, value) {
        (_, Value::Bool(true)) => None,
        ("unevaluatedProperties", Value::Bool(false)) => Some("No other keys are allowed.".into()),
        ("unevaluatedProperties", other) => map_sentence(other, has_properties),
        (_, Value::Bool(false)) => Some("No other items are allowed.".into()),
        (_, other) => Some(format!("Any other items must be {}.", short(other))),
    }
}

/// "Must contain at least one item that is a string." (`contains` with `minContains`,
/// `maxContains`).
pub(crate) fn contains_sentence(
    contains: &Value,
    min: Option<&Value>,
    max: Option<&Value>,
) -> String {
    let what = short(contains);
    let min_text = match min {
        Some(n) if is_one(n) => "at least one item".to_owned(),
        Some(n) => format!("at least {n} items"),
        None => "at least one item".to_owned(),
    };
    let verb = if min.is_some_and(|n| !is_one(n)) {
        "are"
    } else {
        "is"
    };
    match max {
        Some(m) => format!("Must contain {min_text} (and at most {m}) that {verb} {what}."),
        None => format!("Must contain {min_text} that {verb} {what}."),
    }
}

/// "If `a` is present, `b` and `c` must be present too." for each entry.
pub(crate) fn dependent_required_sentences(deps: &Value) -> Vec<String> {
    let Value::Object(entries) = deps else {
        return vec![generic_sentence("dependentRequired", deps)];
    };
    entries
        .iter()
        .map(|(name, needed)| match needed {
            Value::Array(names) => {
                let listed: Vec<String> = names.iter().map(inline_value).collect();
                format!(
                    "If `{name}` is present, {} must be present too.",
                    and_list(&listed)
                )
            }
            other => format!("If `{name}` is present, the object must also match `{other}`."),
        })
        .collect()
}

/// "If `a` is present, the object must also match `<schema>`." for each entry.
pub(crate) fn dependent_schemas_sentences(deps: &Value) -> Vec<String> {
    let Value::Object(entries) = deps else {
        return vec![generic_sentence("dependentSchemas", deps)];
    };
    entries
        .iter()
        .map(|(name, schema)| {
            format!("If `{name}` is present, the object must also match `{schema}`.")
        })
        .collect()
}

/// "Must not be <short>."
pub(crate) fn not_sentence(schema: &Value) -> String {
    format!("Must not be {}.", short(schema))
}

/// `if`/`then`/`else` in words; `None` when there is nothing conditional to say.
pub(crate) fn conditional_sentence(
    condition: Option<&Value>,
    then: Option<&Value>,
    otherwise: Option<&Value>,
) -> Option<String> {
    let condition = short(condition?);
    match (then, otherwise) {
        (Some(t), Some(e)) => Some(format!(
            "If the value is {condition}, it must be {}; otherwise it must be {}.",
            short(t),
            short(e)
        )),
        (Some(t), None) => Some(format!(
            "If the value is {condition}, it must be {}.",
            short(t)
        )),
        (None, Some(e)) => Some(format!(
            "If the value is not {condition}, it must be {}.",
            short(e)
        )),
        (None, None) => None,
    }
}

/// "Must match all of these schemas: `{…}`; `{…}`." (an `allOf` that could not be merged).
pub(crate) fn all_of_sentence(branches: &Value) -> String {
    match branches {
        Value::Array(list) => {
            let shown: Vec<String> = list.iter().map(|b| format!("`{b}`")).collect();
            format!("Must match all of these schemas: {}.", shown.join("; "))
        }
        other => generic_sentence("allOf", other),
    }
}

/// "One of: `celsius`: Degrees Celsius; `fahrenheit`: Degrees Fahrenheit." — every value, with
/// its documentation where it has one (trailing period and line breaks removed).
pub(crate) fn variants_sentence(variants: &[(Value, Option<String>)]) -> String {
    let listed: Vec<String> = variants
        .iter()
        .map(|(value, doc)| {
            let shown = inline_value(value);
            match doc.as_deref().map(flatten_doc) {
                Some(doc) if !doc.is_empty() => format!("{shown}: {doc}"),
                _ => shown,
            }
        })
        .collect();
    format!("One of: {}.", listed.join("; "))
}

/// A doc on one line, without its final period (it goes inside a list).
fn flatten_doc(doc: &str) -> String {
    let one_line = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    one_line.strip_suffix('.').unwrap_or(&one_line).to_owned()
}

/// A tuple (`prefixItems`) in words: "A list of exactly 2 items: first a string, then an
/// integer." When more items may follow: "A list starting with a string, then an integer; any
/// further items are <short>."
pub(crate) fn tuple_sentence(items: &[Value], exact: bool, rest: Option<&Value>) -> String {
    let sequence = items.iter().map(short).collect::<Vec<_>>().join(", then ");
    if !exact {
        let rest = rest.map(short).unwrap_or_else(|| "any value".to_owned());
        return format!("A list starting with {sequence}; any further items are {rest}.");
    }
    match items.len() {
        0 => "Must be an empty list.".to_owned(),
        1 => format!("A list of exactly 1 item: {sequence}."),
        n => format!("A list of exactly {n} items: first {sequence}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::map;
    use serde_json::json;

    #[test]
    fn periods_and_joins() {
        assert_eq!(ensure_period(" Text "), "Text.");
        assert_eq!(ensure_period("Done!"), "Done!");
        assert_eq!(ensure_period(""), "");
        assert_eq!(join_texts("where", "A point."), "where. A point.");
        assert_eq!(join_texts("Same.", "Same."), "Same.");
        assert_eq!(join_texts("", "B."), "B.");
        assert_eq!(join_texts("A.", " "), "A.");
    }

    #[test]
    fn append_creates_or_extends() {
        let mut node = map(json!({"type": "integer"}));
        append_sentences(
            &mut node,
            &["Must be at least 1.".into(), "Default: 3.".into()],
        );
        assert_eq!(
            Value::Object(node.clone()).to_string(),
            r#"{"description":"Must be at least 1. Default: 3.","type":"integer"}"#
        );
        let mut node = map(json!({"type": "integer", "description": "Days "}));
        append_sentences(&mut node, &["Default: 3.".into()]);
        assert_eq!(node["description"], "Days. Default: 3.");
        append_sentences(&mut node, &[]);
        assert_eq!(node["description"], "Days. Default: 3.");
        let mut odd = map(json!({"description": 7}));
        append_sentences(&mut odd, &["X.".into()]);
        assert_eq!(odd["description"], "7. X.");
    }

    #[test]
    fn a_said_default_stays_last() {
        // An MCP rendering converted again: its `default` is kept and already said.
        let mut node = map(json!({"description": "Days. Default: 3.", "default": 3}));
        append_sentences(&mut node, &["Must be at least 1.".into()]);
        assert_eq!(node["description"], "Days. Must be at least 1. Default: 3.");
        let mut alone = map(json!({"description": "Default: null.", "default": null}));
        append_sentences(&mut alone, &["Must be at most 2 characters long.".into()]);
        assert_eq!(
            alone["description"],
            "Must be at most 2 characters long. Default: null."
        );
        // Another default's sentence, or one not at the end, is the author's text.
        let mut other = map(json!({"description": "Default: 4.", "default": 3}));
        append_sentences(&mut other, &["X.".into()]);
        assert_eq!(other["description"], "Default: 4. X.");
        let mut inside = map(json!({"description": "Default: 3. Really.", "default": 3}));
        append_sentences(&mut inside, &["X.".into()]);
        assert_eq!(inside["description"], "Default: 3. Really. X.");
        let mut glued = map(json!({"description": "NoDefault: 3.", "default": 3}));
        append_sentences(&mut glued, &["X.".into()]);
        assert_eq!(glued["description"], "NoDefault: 3. X.");
    }

    #[test]
    fn numeric_sentences() {
        let (one, fourteen) = (json!(1), json!(14));
        assert_eq!(
            range_sentence(Some(&one), Some(&fourteen)).unwrap(),
            "Must be between 1 and 14."
        );
        assert_eq!(
            range_sentence(Some(&one), None).unwrap(),
            "Must be at least 1."
        );
        assert_eq!(
            range_sentence(None, Some(&fourteen)).unwrap(),
            "Must be at most 14."
        );
        assert_eq!(range_sentence(None, None), None);
        assert_eq!(
            exclusive_sentences(Some(&json!(0)), Some(&json!(100))),
            ["Must be greater than 0.", "Must be less than 100."]
        );
        assert_eq!(multiple_of_sentence(&json!(5)), "Must be a multiple of 5.");
    }

    #[test]
    fn length_and_count_sentences() {
        let n = |v: i64| json!(v);
        assert_eq!(
            length_sentence(Some(&n(1)), Some(&n(100))).unwrap(),
            "Must be between 1 and 100 characters long."
        );
        assert_eq!(
            length_sentence(Some(&n(3)), None).unwrap(),
            "Must be at least 3 characters long."
        );
        assert_eq!(
            length_sentence(Some(&n(1)), None).unwrap(),
            "Must be at least 1 character long."
        );
        assert_eq!(
            length_sentence(None, Some(&n(100))).unwrap(),
            "Must be at most 100 characters long."
        );
        assert_eq!(
            length_sentence(Some(&n(4)), Some(&n(4))).unwrap(),
            "Must be exactly 4 characters long."
        );
        assert_eq!(
            count_sentence(Some(&n(1)), Some(&n(5)), "item", "items").unwrap(),
            "Must have between 1 and 5 items."
        );
        assert_eq!(
            count_sentence(Some(&n(1)), None, "item", "items").unwrap(),
            "Must have at least 1 item."
        );
        assert_eq!(
            count_sentence(Some(&n(2)), None, "item", "items").unwrap(),
            "Must have at least 2 items."
        );
        assert_eq!(
            count_sentence(None, Some(&n(1)), "entry", "entries").unwrap(),
            "Must have at most 1 entry."
        );
        assert_eq!(
            count_sentence(Some(&n(2)), Some(&n(2)), "entry", "entries").unwrap(),
            "Must have exactly 2 entries."
        );
    }

    #[test]
    fn string_sentences() {
        assert_eq!(
            pattern_sentence(&json!("^[a-z]+$")),
            "Must match the regular expression `^[a-z]+$`."
        );
        assert_eq!(format_sentence("email"), "Must be an email address.");
        assert_eq!(
            format_sentence("date-time"),
            "Must be a date and time (RFC 3339, e.g. 2024-01-31T09:30:00Z)."
        );
        assert_eq!(format_sentence("uri"), "Must be a URI.");
        assert_eq!(format_sentence("x-custom"), "Format: x-custom.");
    }

    #[test]
    fn value_sentences() {
        assert_eq!(const_sentence(&json!("x")), "Must be `x`.");
        assert_eq!(const_sentence(&json!(1)), "Must be 1.");
        assert_eq!(
            enum_sentence(&[json!(1), json!(2), json!(3)]),
            "Must be one of: 1, 2, 3."
        );
        assert_eq!(default_sentence(&json!("auto")), r#"Default: "auto"."#);
        assert_eq!(default_sentence(&json!(3)), "Default: 3.");
        assert_eq!(
            default_sentence(&json!({"a": [1]})),
            r#"Default: {"a":[1]}."#
        );
        assert_eq!(
            examples_sentence(&json!(["Paris"])).unwrap(),
            r#"Example: "Paris"."#
        );
        assert_eq!(
            examples_sentence(&json!([1, 2])).unwrap(),
            "Examples: 1, 2."
        );
        assert_eq!(examples_sentence(&json!([])), None);
        assert_eq!(
            generic_sentence("x-foo", &json!({"a": 1})),
            r#"(x-foo: {"a":1})"#
        );
    }

    #[test]
    fn short_phrases() {
        assert_eq!(short(&json!({"type": "string"})), "a string");
        assert_eq!(short(&json!({"type": "integer"})), "an integer");
        assert_eq!(
            short(&json!({"type": ["string", "null"]})),
            "a string or null"
        );
        assert_eq!(
            short(&json!({"type": "array", "items": {"type": "integer"}})),
            "an array of integers"
        );
        assert_eq!(short(&json!({"enum": ["a", 1]})), "one of `a`, 1");
        assert_eq!(
            short(&json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
            "a string or null"
        );
        assert_eq!(short(&json!(true)), "any value");
        assert_eq!(short(&json!({"description": "x"})), "any value");
        assert_eq!(short(&json!(false)), "nothing");
        assert_eq!(short(&json!({"$ref": "#/$defs/Point"})), "a `Point`");
        assert_eq!(
            short(&json!({"minimum": 1})),
            r#"a value matching `{"minimum":1}`"#
        );
        assert_eq!(short(&json!(3)), "`3`");
    }

    #[test]
    fn map_sentences() {
        assert_eq!(
            map_sentence(&json!({"type": "string"}), false).unwrap(),
            "An object mapping any key to a string."
        );
        assert_eq!(
            map_sentence(&json!({"type": "integer"}), true).unwrap(),
            "Other keys are allowed, each mapping to an integer."
        );
        assert_eq!(
            map_sentence(&json!(true), false).unwrap(),
            "An object mapping any key to any value."
        );
        assert_eq!(map_sentence(&json!(false), false), None);
        assert_eq!(
            pattern_properties_sentences(&json!({"^x-": {"type": "string"}})),
            ["Keys matching `^x-` map to a string."]
        );
        assert_eq!(
            property_names_sentence(&json!({"pattern": "^[a-z]+$"})),
            "Keys must match the regular expression `^[a-z]+$`."
        );
        assert_eq!(
            property_names_sentence(&json!({"maxLength": 3})),
            r#"Each key must be a value matching `{"maxLength":3}`."#
        );
    }

    #[test]
    fn structural_sentences() {
        assert_eq!(
            contains_sentence(&json!({"type": "string"}), None, None),
            "Must contain at least one item that is a string."
        );
        assert_eq!(
            contains_sentence(&json!({"type": "string"}), Some(&json!(2)), Some(&json!(3))),
            "Must contain at least 2 items (and at most 3) that are a string."
        );
        assert_eq!(
            dependent_required_sentences(&json!({"a": ["b", "c"]})),
            ["If `a` is present, `b` and `c` must be present too."]
        );
        assert_eq!(
            dependent_schemas_sentences(&json!({"a": {"required": ["b"]}})),
            [r#"If `a` is present, the object must also match `{"required":["b"]}`."#]
        );
        assert_eq!(not_sentence(&json!({"type": "null"})), "Must not be null.");
        assert_eq!(
            conditional_sentence(
                Some(&json!({"type": "string"})),
                Some(&json!({"minLength": 1})),
                None
            )
            .unwrap(),
            r#"If the value is a string, it must be a value matching `{"minLength":1}`."#
        );
        assert_eq!(conditional_sentence(None, Some(&json!({})), None), None);
        assert_eq!(
            unevaluated_sentence("unevaluatedProperties", &json!(false), true).unwrap(),
            "No other keys are allowed."
        );
        assert_eq!(
            unevaluated_sentence("unevaluatedItems", &json!(true), false),
            None
        );
    }

    #[test]
    fn variants_and_tuples() {
        let variants = vec![
            (json!("celsius"), Some("Degrees Celsius.".to_owned())),
            (
                json!("fahrenheit"),
                Some("Degrees\n Fahrenheit.".to_owned()),
            ),
            (json!("kelvin"), None),
        ];
        assert_eq!(
            variants_sentence(&variants),
            "One of: `celsius`: Degrees Celsius; `fahrenheit`: Degrees Fahrenheit; `kelvin`."
        );
        let items = [json!({"type": "string"}), json!({"type": "integer"})];
        assert_eq!(
            tuple_sentence(&items, true, None),
            "A list of exactly 2 items: first a string, then an integer."
        );
        assert_eq!(
            tuple_sentence(&items[..1], true, None),
            "A list of exactly 1 item: a string."
        );
        assert_eq!(tuple_sentence(&[], true, None), "Must be an empty list.");
        assert_eq!(
            tuple_sentence(&items, false, Some(&json!({"type": "boolean"}))),
            "A list starting with a string, then an integer; any further items are a boolean."
        );
    }
}
