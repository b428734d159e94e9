//! Completion of a prompt's arguments and a resource template's variables (MCP
//! `completion/complete`): what the client has typed so far, and the suggestions.
//!
//! An author names a function per argument, `#[arg(complete = suggest_city)]`, that takes the
//! [`CompletionRequest`] and returns anything [`IntoCompletions`] (a `Vec<String>`, a
//! `Vec<&str>`, a [`Completions`], or a `Result` of one whose error the client reads):
//!
//! ```
//! use tooldef::{CompletionRequest, Completions};
//!
//! fn suggest_city(request: &CompletionRequest) -> Vec<&'static str> {
//!     ["Lisbon", "London", "Lyon"]
//!         .into_iter()
//!         .filter(|city| city.to_lowercase().starts_with(&request.value.to_lowercase()))
//!         .collect()
//! }
//! # let request = CompletionRequest::new("city", "l");
//! # assert_eq!(suggest_city(&request).len(), 3);
//! ```

use crate::StringArgs;

/// The most values one completion answer holds (MCP's limit).
pub const MAX_COMPLETIONS: usize = 100;

/// What the client asks to complete.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The argument (or template variable) being completed.
    pub argument: String,
    /// What the user has typed so far.
    pub value: String,
    /// The other arguments the user has already given (MCP's `context.arguments`).
    pub arguments: StringArgs,
}

impl CompletionRequest {
    /// A request for `argument`, typed so far as `value`, with no other arguments.
    pub fn new(argument: impl Into<String>, value: impl Into<String>) -> CompletionRequest {
        CompletionRequest {
            argument: argument.into(),
            value: value.into(),
            arguments: StringArgs::new(),
        }
    }

    /// The request with the other arguments given so far.
    #[must_use]
    pub fn with_arguments(mut self, arguments: StringArgs) -> CompletionRequest {
        self.arguments = arguments;
        self
    }
}

/// Suggested values, best first: at most [`MAX_COMPLETIONS`] are sent, with `total` and
/// `has_more` saying how many there were.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Completions {
    /// The values.
    pub values: Vec<String>,
    /// How many values there are in all, when known and more than `values` holds.
    pub total: Option<u32>,
    /// Whether there are more than were sent.
    pub has_more: bool,
}

impl Completions {
    /// These values; past [`MAX_COMPLETIONS`], the rest are counted in `total` and `has_more`
    /// is set.
    pub fn new(values: impl IntoIterator<Item = impl Into<String>>) -> Completions {
        let mut values: Vec<String> = values.into_iter().map(Into::into).collect();
        let count = values.len();
        if count > MAX_COMPLETIONS {
            values.truncate(MAX_COMPLETIONS);
            return Completions {
                values,
                total: Some(u32::try_from(count).unwrap_or(u32::MAX)),
                has_more: true,
            };
        }
        Completions {
            values,
            total: None,
            has_more: false,
        }
    }

    /// Says there are `total` values in all (more than were given).
    #[must_use]
    pub fn with_total(mut self, total: u32) -> Completions {
        self.has_more = total as usize > self.values.len();
        self.total = Some(total);
        self
    }
}

/// What a completion function may return.
#[diagnostic::on_unimplemented(
    message = "a completion function cannot return `{Self}`",
    label = "not a list of suggestions",
    note = "return a `Vec<String>`, a `Vec<&str>`, `Completions`, or a `Result` of one whose error implements `Display`"
)]
pub trait IntoCompletions {
    /// The completions, or the message the client reads.
    fn into_completions(self) -> Result<Completions, String>;
}

impl IntoCompletions for Completions {
    fn into_completions(self) -> Result<Completions, String> {
        Ok(self)
    }
}

impl IntoCompletions for Vec<String> {
    fn into_completions(self) -> Result<Completions, String> {
        Ok(Completions::new(self))
    }
}

impl IntoCompletions for Vec<&str> {
    fn into_completions(self) -> Result<Completions, String> {
        Ok(Completions::new(self))
    }
}

impl<T: IntoCompletions, E: std::fmt::Display> IntoCompletions for Result<T, E> {
    fn into_completions(self) -> Result<Completions, String> {
        self.map_err(|e| e.to_string())?.into_completions()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_the_limit_is_counted_not_sent() {
        let completions = Completions::new((0..150).map(|i| i.to_string()));
        assert_eq!(completions.values.len(), MAX_COMPLETIONS);
        assert_eq!(completions.total, Some(150));
        assert!(completions.has_more);
        let few = Completions::new(["a", "b"]);
        assert_eq!((few.total, few.has_more), (None, false));
    }
}
