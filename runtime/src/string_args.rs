//! [`StringArgs`]: the arguments MCP sends as strings — a prompt's arguments and the variables
//! of a resource's URI template — read into typed values through [`FromStr`].

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Arguments that arrive as strings, by name: a prompt's (`prompts/get`'s `arguments`) or the
/// variables a URI matched in a resource template. `#[prompt]` and `#[resource]` read each
/// parameter from them with [`take`](StringArgs::take) or [`take_optional`](StringArgs::take_optional).
///
/// ```
/// use tooldef::StringArgs;
///
/// let mut args = StringArgs::from_iter([("days", "5")]);
/// let days: u32 = args.take("days").unwrap();
/// assert_eq!(days, 5);
/// assert!(args.take_optional::<u32>("nights").unwrap().is_none());
/// let err = StringArgs::from_iter([("days", "five")]).take::<u32>("days").unwrap_err();
/// assert_eq!(err.to_string(), "argument `days`: \"five\" is not valid here (invalid digit found in string)");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StringArgs {
    values: BTreeMap<String, String>,
}

/// An argument that is missing or that its parameter's type cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StringArgError {
    /// A required argument was not given.
    #[error("argument `{name}` is required")]
    Missing {
        /// The argument's name.
        name: String,
    },
    /// There is no argument of this name.
    #[error("there is no argument `{name}`")]
    Unknown {
        /// The name asked for.
        name: String,
    },
    /// The argument's text is not a value of the parameter's type.
    #[error("argument `{name}`: {value:?} is not valid here ({reason})")]
    Invalid {
        /// The argument's name.
        name: String,
        /// The text that was given.
        value: String,
        /// The type's own reason (its `FromStr` error).
        reason: String,
    },
}

impl StringArgs {
    /// No arguments.
    pub fn new() -> StringArgs {
        StringArgs::default()
    }

    /// Adds (or replaces) an argument.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.values.insert(name.into(), value.into());
    }

    /// The argument `name` as given, if it was.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Every argument, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Whether no argument was given.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Takes the required argument `name` as a `T`.
    pub fn take<T: FromStr>(&mut self, name: &str) -> Result<T, StringArgError>
    where
        T::Err: fmt::Display,
    {
        self.take_optional(name)?
            .ok_or_else(|| StringArgError::Missing {
                name: name.to_owned(),
            })
    }

    /// Takes the argument `name` as a `T`, if it was given.
    pub fn take_optional<T: FromStr>(&mut self, name: &str) -> Result<Option<T>, StringArgError>
    where
        T::Err: fmt::Display,
    {
        let Some(value) = self.values.remove(name) else {
            return Ok(None);
        };
        match value.parse::<T>() {
            Ok(parsed) => Ok(Some(parsed)),
            Err(reason) => Err(StringArgError::Invalid {
                name: name.to_owned(),
                reason: reason.to_string(),
                value,
            }),
        }
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for StringArgs {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> StringArgs {
        StringArgs {
            values: iter
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }
}
