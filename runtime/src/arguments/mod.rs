//! The argument pipeline, before the tool's own types take over: limits, `null` as absent,
//! leniency, validation against the schema the model was shown, and the problems found, each
//! with its JSON Pointer. One idea per module: the text before any schema (`text`), what a
//! parsed value holds (`shape`), rewriting the parsed value along the shown schema (`rewrite`),
//! the ranges of the Rust number types (`ranges`), what to validate and with what (`validate`),
//! the `format` checks beyond the validator's own (`formats`),
//! the problems in the model's words (`problems`), and deserialising with the path kept when an
//! error needs it (`tracked`).

pub mod fields;
mod formats;
mod problems;
mod ranges;
mod rewrite;
mod shape;
mod text;
mod tracked;
mod validate;

use std::borrow::Cow;

use serde_json::Value;

pub(crate) use problems::*;
pub(crate) use ranges::*;
pub(crate) use rewrite::*;
pub(crate) use shape::*;
pub(crate) use text::*;
pub(crate) use tracked::*;
pub(crate) use validate::*;

/// Arguments as a model or program gives them.
#[derive(Debug, Clone, PartialEq)]
pub enum Arguments<'a> {
    /// Already-parsed JSON.
    Json(Cow<'a, Value>),
    /// JSON text, as Chat Completions sends `function.arguments`.
    Text(Cow<'a, str>),
    /// JSON bytes, which may not even be UTF-8.
    Bytes(Cow<'a, [u8]>),
}

impl From<Value> for Arguments<'static> {
    fn from(value: Value) -> Self {
        Arguments::Json(Cow::Owned(value))
    }
}

impl<'a> From<&'a Value> for Arguments<'a> {
    fn from(value: &'a Value) -> Self {
        Arguments::Json(Cow::Borrowed(value))
    }
}

impl<'a> From<&'a str> for Arguments<'a> {
    fn from(text: &'a str) -> Self {
        Arguments::Text(Cow::Borrowed(text))
    }
}

impl From<String> for Arguments<'static> {
    fn from(text: String) -> Self {
        Arguments::Text(Cow::Owned(text))
    }
}

impl<'a> From<&'a [u8]> for Arguments<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Arguments::Bytes(Cow::Borrowed(bytes))
    }
}

impl From<Vec<u8>> for Arguments<'static> {
    fn from(bytes: Vec<u8>) -> Self {
        Arguments::Bytes(Cow::Owned(bytes))
    }
}

/// Limits on the arguments of one call, checked before anything else. The defaults protect a
/// server from a runaway or hostile client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes of JSON text accepted (default 1 MiB).
    pub max_bytes: usize,
    /// The deepest nesting of arrays and objects accepted (default 100). A recursive type costs
    /// two levels per level of itself when its children are in a list (`children: Vec<Node>`),
    /// so the default takes a tree 49 levels deep; serde_json itself stops at 127.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 1024 * 1024,
            max_depth: 100,
        }
    }
}

/// Common model mistakes to forgive. Off by default: forgiving them hides a prompt or schema
/// problem that is better fixed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Leniency {
    /// Accept arguments double-encoded as a JSON string (`"{\"city\":\"Paris\"}"`).
    pub double_encoded: bool,
    /// Accept numbers and booleans sent as strings (`"3"`, `"true"`) where the schema wants a
    /// number, integer or boolean.
    pub stringly_typed: bool,
}
