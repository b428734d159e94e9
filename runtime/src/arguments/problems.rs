//! Problems in the model's words: what the validator or serde found, where, what was expected
//! and what was received.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use crate::ArgumentProblem;
use crate::describe_value::{received, shorten, typed};

/// A validation error as problems for the model. A value that matches none of the branches of an
/// `anyOf`/`oneOf` (a data-carrying enum, an `Option`) is reported through the branch it was
/// meant for: one that takes the value's JSON type, then the one whose keys the value has, then
/// the one with the fewest errors. "at
/// `/schedule/hour`: must be at most 23" tells the model what to fix, where "matches none of the
/// allowed shapes" would not; and an object with two bad fields is never explained by the `null`
/// branch it is one error away from ("expected `null`"), which would have the model drop its
/// data. A value no branch takes the type of is told every type it may have.
pub(crate) fn validation_problems(error: &jsonschema::ValidationError<'_>) -> Vec<ArgumentProblem> {
    let branches = match error.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            context
        }
        _ => return vec![validation_problem(error)],
    };
    if let Some(problem) = unknown_discriminator(branches) {
        return vec![problem];
    }
    let here = error.instance_path().as_str();
    if let Some(problem) = no_branch_takes_the_type(branches, here, error.instance()) {
        return vec![problem];
    }
    // A branch refused only for its discriminator (`kind` is not "daily") is not the closest.
    let closest = branches
        .iter()
        .filter(|errors| !errors.is_empty())
        .min_by_key(|errors| {
            let discriminator_only = errors.iter().all(|e| {
                matches!(
                    e.kind(),
                    ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
                )
            });
            // Errors at the value itself (a key missing, a key unknown) say the value has
            // another variant's shape: `{"move": {…}}` is not a `{"say": …}` missing `say`.
            let at_the_value = errors
                .iter()
                .filter(|e| e.instance_path().as_str() == here)
                .count();
            (
                refuses_the_type(errors, here),
                discriminator_only,
                at_the_value,
                errors.len(),
            )
        });
    match closest {
        Some(errors) => errors.iter().flat_map(|e| validation_problems(e)).collect(),
        None => vec![validation_problem(error)],
    }
}

/// Whether a branch refuses the value for its JSON type: a `type` error at the value itself
/// (`{"type": "null"}` for an object), not inside it.
fn refuses_the_type(errors: &[jsonschema::ValidationError<'static>], here: &str) -> bool {
    errors.iter().any(|e| {
        e.instance_path().as_str() == here && matches!(e.kind(), ValidationErrorKind::Type { .. })
    })
}

/// When every branch refuses the value for its type alone, one problem: every type it may have
/// ("expected `object` or `null`, got a string"), rather than one branch's type.
fn no_branch_takes_the_type(
    branches: &[Vec<jsonschema::ValidationError<'static>>],
    here: &str,
    instance: &Value,
) -> Option<ArgumentProblem> {
    let mut expected: Vec<String> = Vec::new();
    for errors in branches {
        let [error] = errors.as_slice() else {
            return None;
        };
        let ValidationErrorKind::Type { kind } = error.kind() else {
            return None;
        };
        if error.instance_path().as_str() != here {
            return None;
        }
        let types: Vec<String> = match kind {
            TypeKind::Single(t) => vec![t.to_string()],
            TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
        };
        for t in types {
            if !expected.contains(&t) {
                expected.push(t);
            }
        }
    }
    if branches.len() < 2 {
        return None;
    }
    Some(ArgumentProblem {
        pointer: here.to_owned(),
        message: expected_types(expected, instance),
    })
}

/// "expected `integer` or `null`, got a string (\"x\")": the types first, `null` (that the value
/// may be left out) last.
fn expected_types(types: Vec<String>, instance: &Value) -> String {
    let mut expected: Vec<String> = types.into_iter().map(|t| format!("`{t}`")).collect();
    expected.sort_by_key(|t| t == "`null`");
    format!(
        "expected {}, got {}",
        expected.join(" or "),
        typed(instance)
    )
}

/// When every branch refuses the same property for its `const`/`enum` (the tag of a data-carrying
/// enum, `"kind": "weekly"`), the model chose a variant that does not exist: say which exist.
fn unknown_discriminator(
    branches: &[Vec<jsonschema::ValidationError<'static>>],
) -> Option<ArgumentProblem> {
    let mut pointer: Option<&str> = None;
    let mut allowed: Vec<String> = Vec::new();
    let mut got = None;
    for errors in branches {
        let tag = errors.iter().find(|e| {
            matches!(
                e.kind(),
                ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
            )
        })?;
        let here = tag.instance_path().as_str();
        if pointer.is_some_and(|p| p != here) {
            return None;
        }
        pointer = Some(here);
        got = Some(received(tag.instance()));
        match tag.kind() {
            ValidationErrorKind::Constant { expected_value } => {
                allowed.push(expected_value.to_string())
            }
            ValidationErrorKind::Enum { options } => allowed.extend(
                options
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(Value::to_string),
            ),
            _ => {}
        }
    }
    let pointer = pointer?;
    if pointer.is_empty() || branches.len() < 2 {
        return None;
    }
    Some(ArgumentProblem {
        pointer: pointer.to_owned(),
        message: format!(
            "must be one of {}, got {}",
            allowed.join(", "),
            got.unwrap_or_default()
        ),
    })
}

/// "1 character", "3 characters".
fn characters(n: u64) -> String {
    format!("{n} character{}", if n == 1 { "" } else { "s" })
}

/// A validation error as a problem for the model: where, what was expected, what was received.
fn validation_problem(error: &jsonschema::ValidationError<'_>) -> ArgumentProblem {
    let instance = error.instance();
    let got = received(instance);
    let message = match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            format!("the required argument `{name}` is missing")
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let names: Vec<String> = unexpected
                .iter()
                .map(|n| format!("`{}`", shorten(n, 40)))
                .collect();
            format!(
                "unknown {} {}: remove {}",
                if names.len() == 1 {
                    "property"
                } else {
                    "properties"
                },
                names.join(", "),
                if names.len() == 1 { "it" } else { "them" }
            )
        }
        ValidationErrorKind::Type { kind } => expected_types(
            match kind {
                TypeKind::Single(t) => vec![t.to_string()],
                TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
            },
            instance,
        ),
        ValidationErrorKind::Enum { options } => {
            format!(
                "must be one of {}, got {got}",
                shorten(&options.to_string(), 300)
            )
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("must be {expected_value}, got {got}")
        }
        ValidationErrorKind::Minimum { limit } => format!("must be at least {limit}, got {got}"),
        ValidationErrorKind::Maximum { limit } => format!("must be at most {limit}, got {got}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("must be greater than {limit}, got {got}")
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("must be less than {limit}, got {got}")
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("must be a multiple of {multiple_of}, got {got}")
        }
        ValidationErrorKind::MinLength { limit } => format!(
            "must be at least {} long, got {}",
            characters(*limit),
            characters(instance.as_str().map_or(0, |s| s.chars().count() as u64))
        ),
        ValidationErrorKind::MaxLength { limit } => format!(
            "must be at most {} long, got {}",
            characters(*limit),
            characters(instance.as_str().map_or(0, |s| s.chars().count() as u64))
        ),
        ValidationErrorKind::Pattern { pattern } => {
            format!("must match the regular expression `{pattern}`, got {got}")
        }
        ValidationErrorKind::Format { format } => match crate::schema::format_phrase(format) {
            Some(phrase) => format!("must be {phrase}, got {got}"),
            None => format!("must be a valid `{format}`, got {got}"),
        },
        ValidationErrorKind::MinItems { limit } => format!(
            "must have at least {limit} item{}, got {}",
            if *limit == 1 { "" } else { "s" },
            instance.as_array().map_or(0, Vec::len)
        ),
        ValidationErrorKind::MaxItems { limit } => format!(
            "must have at most {limit} item{}, got {}",
            if *limit == 1 { "" } else { "s" },
            instance.as_array().map_or(0, Vec::len)
        ),
        ValidationErrorKind::UniqueItems => "the items must be unique".to_owned(),
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            format!("matches none of the allowed shapes, got {got}")
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            format!("matches more than one allowed shape, got {got}")
        }
        _ => shorten(&error.to_string(), 200),
    };
    ArgumentProblem {
        pointer: error.instance_path().as_str().to_owned(),
        message,
    }
}

/// A deserialisation error as a problem at `pointer`.
pub(crate) fn deserialize_problem(pointer: String, error: &serde_json::Error) -> ArgumentProblem {
    let text = error.to_string();
    // serde_json appends " at line 1 column 12", which says nothing in a one-line argument object.
    let text = text.split(" at line ").next().unwrap_or(&text);
    ArgumentProblem {
        pointer,
        message: shorten(text, 300),
    }
}

/// The JSON Pointer of a path serde_path_to_error found.
pub(crate) fn path_to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
            Segment::Map { key } => {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
            }
            Segment::Enum { variant } => {
                pointer.push('/');
                pointer.push_str(variant);
            }
            Segment::Unknown => {}
        }
    }
    pointer
}
