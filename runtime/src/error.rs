//! Errors of tooldef.

use crate::Target;

/// Why a tool's input schema cannot be rendered for a target.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The root of an input schema must be a JSON object schema (`"type": "object"`).
    #[error(
        "{target} needs the arguments to be a JSON object, but the schema's root is {found}; \
         take the arguments as a struct (or named parameters) rather than {found}"
    )]
    RootNotObject {
        /// The target that refused it.
        target: Target,
        /// What the root is instead, in words.
        found: String,
    },
    /// A recursive type cannot be expressed where every `$ref` must be inlined (Gemini).
    #[error(
        "{target} cannot express the recursive type at `{reference}`: its `parameters` have no \
         `$ref`, so every type is inlined and a type that contains itself never ends; \
         bound the nesting with distinct types, or serve this tool to another target"
    )]
    Recursive {
        /// The target that refused it.
        target: Target,
        /// The `$ref` that points back at one of its ancestors.
        reference: String,
    },
    /// A `$ref` points at nothing in the schema.
    #[error("the schema has a `$ref` to `{reference}`, which is not defined in it")]
    UnresolvedRef {
        /// The reference that could not be resolved.
        reference: String,
    },
}
