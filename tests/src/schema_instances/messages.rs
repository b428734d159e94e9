//! Whether the problems a refused call reports tell the model what to fix: each problem must
//! name a place where the arguments really break the schema (its JSON Pointer, the same as the
//! `jsonschema` crate finds, or under it for a union), say what was expected there in JSON's
//! terms (the JSON type, the bound, the allowed values, the pattern, the format, the property),
//! and what was received (the value, or its JSON type), without Rust's or serde's vocabulary
//! (`u8`, `f64`, "a sequence", "invalid type: …", "unknown field").

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use super::node::json_type;

/// One error the oracle (the `jsonschema` crate, on the canonical constraints) finds.
#[derive(Debug, Clone)]
pub struct Expected {
    /// Where, as a JSON Pointer.
    pub pointer: String,
    /// What the model must be told, each alternative a list of words any of which will do.
    pub must_say: Vec<Vec<String>>,
    /// What was received, in words any of which will do (empty: nothing to say).
    pub received: Vec<String>,
    /// Whether a problem under this place also counts (a union reported through a branch).
    pub union: bool,
    /// For a union: whether one of its branches takes the value's JSON type, so that the value
    /// was meant for that branch, and a problem here must not be another branch's complaint
    /// about the type ("expected `null`" for an object with two bad fields).
    pub takes_type: bool,
    /// The error as the crate words it.
    pub text: String,
}

/// The oracle's errors for an instance, flattened: a union's error and every error of each of
/// its branches (a problem may be reported through any branch).
pub fn expected_errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<Expected> {
    let mut out = Vec::new();
    for error in validator.iter_errors(instance) {
        flatten(&error, &mut out);
    }
    out
}

fn number_words(limit: &Value) -> Vec<String> {
    let mut words = vec![limit.to_string()];
    if let Some(f) = limit.as_f64() {
        words.push(format!("{f}"));
        if f.fract() == 0.0 && f.abs() < 1e19 {
            words.push(format!("{}", f as i128));
        }
    }
    words
}

/// The ways a number may be written back: as sent, as an integer (`3` for `3.0`), and as
/// Rust writes the double (`1e300` for `1e+300`).
pub fn spellings(value: &Value) -> Vec<String> {
    let mut out = vec![value.to_string()];
    if let Value::Number(n) = value {
        if let Some(i) = super::node::as_integer(n) {
            out.push(i.to_string());
        }
        if let Some(f) = n.as_f64() {
            out.push(format!("{f}"));
            out.push(format!("{f:e}"));
            out.push(format!("{f:?}"));
        }
    }
    out
}

/// The start of a received string as a message may quote it: as it is, or escaped as JSON
/// writes it (`\n` for a line break, `\"` for a quote).
fn string_words(s: &str) -> [String; 2] {
    let start: String = s.chars().take(20).collect();
    let json = Value::String(start.clone()).to_string();
    [start, json[1..json.len() - 1].to_owned()]
}

fn received_words(instance: &Value) -> Vec<String> {
    let mut words = vec![json_type(instance).to_owned()];
    match instance {
        Value::String(s) => words.extend(string_words(s)),
        Value::Number(_) | Value::Bool(_) => words.extend(spellings(instance)),
        Value::Array(_) => words.push("array".to_owned()),
        _ => {}
    }
    if json_type(instance) == "integer" {
        words.push("number".to_owned());
    }
    words
}

/// What a message may call a format instead of its name: the words of tooldef's own sentences
/// ("Must be a date (YYYY-MM-DD).").
fn format_words(format: &str) -> Vec<String> {
    let words: &[&str] = match format {
        "date" => &["YYYY-MM-DD"],
        "date-time" => &["date and time", "RFC 3339"],
        "time" => &["HH:MM:SS"],
        "partial-time" => &["HH:MM:SS", "time of day"],
        "partial-date-time" => &["YYYY-MM-DDTHH:MM:SS", "date and time"],
        "uri" => &["URL"],
        "hostname" => &["host name"],
        "ip" => &["IP address"],
        _ => &[],
    };
    std::iter::once(format.to_owned())
        .chain(words.iter().map(|w| (*w).to_owned()))
        .collect()
}

fn flatten(error: &jsonschema::ValidationError<'_>, out: &mut Vec<Expected>) {
    let instance = error.instance().as_ref();
    let received = received_words(instance);
    let pointer = error.instance_path().as_str().to_owned();
    let text = error.to_string();
    let mut takes_type = false;
    let (must_say, received, union): (Vec<Vec<String>>, Vec<String>, bool) = match error.kind() {
        ValidationErrorKind::Type { .. } => {
            let types: Vec<String> = text
                .split(" is not of type ")
                .nth(1)
                .unwrap_or("")
                .split(|c: char| !c.is_ascii_alphabetic())
                .filter(|w| {
                    ["string", "integer", "number", "boolean", "array", "object"].contains(w)
                })
                .map(str::to_owned)
                .collect();
            (vec![types], received, false)
        }
        ValidationErrorKind::Minimum { limit }
        | ValidationErrorKind::Maximum { limit }
        | ValidationErrorKind::ExclusiveMinimum { limit }
        | ValidationErrorKind::ExclusiveMaximum { limit } => {
            (vec![number_words(limit)], spellings(instance), false)
        }
        ValidationErrorKind::MultipleOf { multiple_of } => (
            vec![number_words(&serde_json::json!(multiple_of))],
            spellings(instance),
            false,
        ),
        ValidationErrorKind::MinLength { limit } | ValidationErrorKind::MaxLength { limit } => {
            let length = instance.as_str().map_or(0, |s| s.chars().count());
            let mut received = vec![length.to_string()];
            received.extend(string_words(instance.as_str().unwrap_or("")));
            (vec![vec![limit.to_string()]], received, false)
        }
        ValidationErrorKind::MinItems { limit } | ValidationErrorKind::MaxItems { limit } => {
            let length = instance.as_array().map_or(0, Vec::len);
            (
                vec![vec![limit.to_string()]],
                vec![length.to_string()],
                false,
            )
        }
        ValidationErrorKind::Pattern { pattern } => (vec![vec![pattern.clone()]], received, false),
        ValidationErrorKind::Format { format } => (vec![format_words(format)], received, false),
        ValidationErrorKind::Enum { options } => (
            vec![
                options
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|o| o.as_str().map_or_else(|| o.to_string(), str::to_owned))
                    .collect(),
            ],
            received,
            false,
        ),
        ValidationErrorKind::Constant { expected_value } => (
            vec![vec![
                expected_value
                    .as_str()
                    .map_or_else(|| expected_value.to_string(), str::to_owned),
            ]],
            received,
            false,
        ),
        ValidationErrorKind::Required { property } => (
            vec![vec![
                property
                    .as_str()
                    .map_or_else(|| property.to_string(), str::to_owned),
            ]],
            vec![],
            false,
        ),
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            (vec![unexpected.clone()], vec![], false)
        }
        ValidationErrorKind::UniqueItems => (vec![vec!["unique".to_owned()]], vec![], false),
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            takes_type = context.iter().any(|branch| {
                !branch.iter().any(|e| {
                    e.instance_path().as_str() == pointer
                        && matches!(e.kind(), ValidationErrorKind::Type { .. })
                })
            });
            for branch in context {
                for e in branch {
                    flatten(e, out);
                }
            }
            (vec![], vec![], true)
        }
        ValidationErrorKind::Not { .. } => (vec![], spellings(instance), false),
        ValidationErrorKind::FalseSchema => (vec![], vec![], false),
        _ => (vec![], vec![], false),
    };
    out.push(Expected {
        pointer,
        must_say,
        received,
        union,
        takes_type,
        text,
    });
}

/// Words of Rust and serde that mean nothing to a model.
const RUSTY: &[&str] = &[
    "invalid type:",
    "invalid value:",
    "unknown field",
    "unknown variant",
    "missing field",
    "did not match any variant",
    "a sequence",
    "expected a map",
    "expected struct",
    "expected tuple",
    "expected unit",
    "input is out of range",
    "input contains invalid characters",
    "premature end of input",
    "trailing input",
    "invalid length",
    "another type",
    "trailing characters",
    "relative URL without a base",
    "invalid character",
];

const RUST_TYPES: &[&str] = &[
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "f32",
    "f64",
    "NonZeroU64",
    "Option",
    "Vec",
    "HashSet",
    "BTreeSet",
];

fn words(message: &str) -> impl Iterator<Item = &str> {
    message.split(|c: char| !c.is_alphanumeric() && c != '_')
}

/// `message` without what it quotes (`"…"` and `` `…` ``): the received value and the names
/// it repeats may hold anything, `u8` included.
fn unquoted(message: &str) -> String {
    let mut out = String::new();
    let mut quote = None;
    let mut escaped = false;
    for c in message.chars() {
        match (quote, c) {
            // A quoted value is written as JSON writes it: `\"` does not end it.
            (Some('"'), _) if escaped => escaped = false,
            (Some('"'), '\\') => escaped = true,
            (None, '"' | '`') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) => out.push(c),
            _ => {}
        }
    }
    out
}

/// The fault of a problem at a place where the value is valid for the schema: a refusal the
/// schema does not explain.
pub const UNEXPLAINED: &str = "a problem where the schema finds none";

/// The fault of a union explained by a branch that does not take the value's type.
pub const MISPLACED: &str = "a union explained by a branch the value's type was not meant for";

/// The fault of a broken place no problem names.
pub const UNNAMED: &str = "a broken place no problem names";

/// Whether every place in `broken` is named by a problem, at it or under it: an object with k
/// bad fields is told of each, not of the first only nor as a whole.
pub fn names_each(problems: &[tooldef::ArgumentProblem], broken: &[String]) -> Result<(), Poor> {
    for place in broken {
        let named = problems
            .iter()
            .any(|p| p.pointer == *place || p.pointer.starts_with(&format!("{place}/")));
        if !named {
            return Err(Poor {
                fault: UNNAMED.to_owned(),
                problem: problems
                    .first()
                    .cloned()
                    .unwrap_or(tooldef::ArgumentProblem {
                        pointer: String::new(),
                        message: String::new(),
                    }),
                detail: format!(
                    "`{place}` is broken, but the problems name only {:?}",
                    problems.iter().map(|p| &p.pointer).collect::<Vec<_>>()
                ),
            });
        }
    }
    Ok(())
}

/// Why a refused call's problems are poor.
#[derive(Debug, Clone)]
pub struct Poor {
    /// The kind of fault, in a few words (what findings are grouped on, with the message).
    pub fault: String,
    /// The problem at fault.
    pub problem: tooldef::ArgumentProblem,
    /// The details.
    pub detail: String,
}

/// What is wrong with the problems reported for an instance the oracle refuses (`Ok`: they
/// tell the model what to fix).
pub fn judge(problems: &[tooldef::ArgumentProblem], expected: &[Expected]) -> Result<(), Poor> {
    if problems.is_empty() {
        return Err(Poor {
            fault: "no problem reported".to_owned(),
            problem: tooldef::ArgumentProblem {
                pointer: String::new(),
                message: String::new(),
            },
            detail: "refused without a problem".to_owned(),
        });
    }
    for problem in problems {
        let poor = |fault: String, detail: String| Poor {
            fault,
            problem: problem.clone(),
            detail,
        };
        let message = &problem.message;
        let own_words = unquoted(message);
        if let Some(bad) = RUSTY.iter().find(|r| own_words.contains(*r)) {
            return Err(poor(
                format!("serde's or Rust's words ({bad:?})"),
                format!("at `{}`: {message}", problem.pointer),
            ));
        }
        if let Some(bad) = words(&own_words).find(|w| RUST_TYPES.contains(w)) {
            return Err(poor(
                format!("a Rust type name ({bad})"),
                format!("at `{}`: {message}", problem.pointer),
            ));
        }
        let here: Vec<&Expected> = expected
            .iter()
            .filter(|e| {
                problem.pointer == e.pointer
                    || (e.union && problem.pointer.starts_with(&format!("{}/", e.pointer)))
            })
            .collect();
        if here.is_empty() {
            let places: Vec<&str> = expected.iter().map(|e| e.pointer.as_str()).collect();
            return Err(poor(
                UNEXPLAINED.to_owned(),
                format!(
                    "a problem at `{}`, where the schema allows the value (it is broken at \
                     {places:?}): {message}",
                    problem.pointer
                ),
            ));
        }
        // "expected `T`, got …" where the value was meant for a branch that takes its type:
        // another branch's complaint, which would have the model change the value's type.
        if message.starts_with("expected `")
            && let Some(union) = here
                .iter()
                .find(|e| e.union && e.takes_type && e.pointer == problem.pointer)
        {
            return Err(poor(
                MISPLACED.to_owned(),
                format!(
                    "at `{}`: {message:?}, though a branch of the union takes the value's type                      (the union: {})",
                    problem.pointer, union.text
                ),
            ));
        }
        let lower = message.to_lowercase();
        let says = |w: &String| lower.contains(&w.to_lowercase());
        let good = here.iter().any(|e| {
            e.must_say
                .iter()
                .all(|alternatives| alternatives.is_empty() || alternatives.iter().any(says))
                && (e.received.is_empty() || e.received.iter().any(says))
        });
        if !good {
            let e = here[0];
            let missing_expected = e
                .must_say
                .iter()
                .any(|a| !a.is_empty() && !a.iter().any(says));
            let (fault, words) = if missing_expected {
                (
                    "does not say what was expected",
                    format!("{:?}", e.must_say),
                )
            } else {
                (
                    "does not say what was received",
                    format!("{:?}", e.received),
                )
            };
            return Err(poor(
                fault.to_owned(),
                format!(
                    "the problem at `{}` {fault} ({words}): {message:?} (the schema: {})",
                    problem.pointer, e.text
                ),
            ));
        }
    }
    Ok(())
}
