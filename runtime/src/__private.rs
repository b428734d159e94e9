//! What the code `#[tool]` generates needs from this crate. Not public API.

pub use schemars;
pub use serde;
pub use serde_json;

use std::marker::PhantomData;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};

use crate::portable::{
    MapsAreNotPortable, ReferencesAreNotPortable, TuplesAreNotPortable, WideIntegersAreNotPortable,
};

/// The input schema of an argument type: draft 2020-12, as the type deserialises.
pub fn input_schema<T: JsonSchema>() -> Schema {
    SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// A `#[schemars(transform)]` for generated argument structs: their doc comment is for rustdoc,
/// while the model reads the tool's own description.
pub fn remove_root_description(schema: &mut Schema) {
    schema.remove("description");
}

/// A parameter's default is shown to the model in its JSON spelling, so its type must serialise.
#[diagnostic::on_unimplemented(
    message = "the default of a tool parameter of type `{Self}` cannot be shown to the model",
    label = "`{Self}` does not implement `Serialize`",
    note = "tooldef writes each default into the parameter's description (\"Default: 3.\"), which needs `Serialize`: derive it, or drop `default`"
)]
pub trait DefaultShown {}
impl<T: serde::Serialize> DefaultShown for T {}

/// Compile-time check that a defaulted parameter's type implements [`DefaultShown`].
pub const fn assert_default_shown<T: DefaultShown>() {}

/// Output schemas, chosen by autoref specialisation on the concrete return type:
/// `Result<T, E>` with `T: JsonSchema` → `T`'s schema; `T: JsonSchema` → `T`'s schema; else none.
pub mod output {
    use std::marker::PhantomData;

    use schemars::generate::SchemaSettings;
    use schemars::{JsonSchema, Schema};

    /// Carries the return type to the method lookup.
    pub struct Probe<T: ?Sized>(PhantomData<T>);

    impl<T: ?Sized> Probe<T> {
        /// A probe for `T`.
        #[allow(clippy::new_without_default)]
        pub const fn new() -> Self {
            Probe(PhantomData)
        }
    }

    fn schema_of<T: JsonSchema>() -> Schema {
        SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<T>()
    }

    /// Highest priority: `Result<T, E>` where `T` has a schema.
    pub trait ResultOutputSchema {
        /// The output schema.
        fn output_schema(&self) -> Option<Schema>;
    }
    impl<T: JsonSchema, E> ResultOutputSchema for &&Probe<Result<T, E>> {
        fn output_schema(&self) -> Option<Schema> {
            Some(schema_of::<T>())
        }
    }

    /// Next: any type with a schema.
    pub trait PlainOutputSchema {
        /// The output schema.
        fn output_schema(&self) -> Option<Schema>;
    }
    impl<T: JsonSchema> PlainOutputSchema for &Probe<T> {
        fn output_schema(&self) -> Option<Schema> {
            Some(schema_of::<T>())
        }
    }

    /// Fallback: no output schema.
    pub trait NoOutputSchema {
        /// No output schema.
        fn output_schema(&self) -> Option<Schema>;
    }
    impl<T: ?Sized> NoOutputSchema for Probe<T> {
        fn output_schema(&self) -> Option<Schema> {
            None
        }
    }
}

/// Compile-time check that an argument type is [`Portable`](crate::Portable): generated code
/// names `CheckPortable<T>` in the signature of a function that is never called, spanned at the
/// user's type, and rustc checks the bound where the type is written.
///
/// The bound is [`PortableArgument`] rather than `Portable` itself: rustc reports the refused
/// family's own message one level down (`a map (…) cannot be…`), and offers no `Portable` impl
/// as a "similar" one for the type at fault.
pub struct CheckPortable<T: PortableArgument + ?Sized>(PhantomData<T>);

/// A type that can be a tool argument: every [`Portable`](crate::Portable) type.
pub trait PortableArgument {}
impl<T: crate::Portable + ?Sized> PortableArgument for T {}

/// The check of a map written in an argument's type (its `Portable` impl is not recommended, so
/// that rustc does not list it among the portable types; this brings back its own message).
pub struct RefusedMap<'a, T: MapsAreNotPortable<'a> + ?Sized>(PhantomData<&'a T>);
/// The check of a tuple written in an argument's type; see [`RefusedMap`].
pub struct RefusedTuple<'a, T: TuplesAreNotPortable<'a> + ?Sized>(PhantomData<&'a T>);
/// The check of a 128-bit integer written in an argument's type; see [`RefusedMap`].
pub struct RefusedWideInteger<'a, T: WideIntegersAreNotPortable<'a> + ?Sized>(PhantomData<&'a T>);
/// The check of a reference written in an argument's type; see [`RefusedMap`].
pub struct RefusedReference<'a, T: ReferencesAreNotPortable<'a> + ?Sized>(PhantomData<&'a T>);

/// The tool's type is named after the function (or `type_name`); `#[tool]` checks that this
/// name, in the function's module, is the type it generated, and not another item that has it.
#[diagnostic::on_unimplemented(
    message = "`#[tool]` cannot name this tool's type `{Self}`: the module already has an item of that name",
    label = "the tool's type would be `{Self}`",
    note = "name the tool's type otherwise with `#[tool(type_name = \"…\")]` (by default it is the function's name in UpperCamelCase), or rename the other item"
)]
pub trait IsTheToolType<Generated: ?Sized> {}
impl<T: ?Sized> IsTheToolType<T> for T {}

/// Compile-time check that `Named`, the tool type's name where the function is, is `Generated`.
pub const fn assert_tool_type<Named: IsTheToolType<Generated> + ?Sized, Generated: ?Sized>() {}

/// [`IsTheToolType`] for the tool of a method of a `#[tools]` block, whose type is named after
/// the block's type and the method.
#[diagnostic::on_unimplemented(
    message = "`#[tools]` cannot name this method's tool type `{Self}`: the module already has an item of that name",
    label = "the tool's type would be `{Self}`",
    note = "name the tool's type otherwise with `#[tool(type_name = \"…\")]` on the method (by default it is the block's type followed by the method's name in UpperCamelCase), or rename the other item"
)]
pub trait IsTheMethodToolType<Generated: ?Sized> {}
impl<T: ?Sized> IsTheMethodToolType<T> for T {}

/// Compile-time check that `Named`, the tool type's name where the `#[tools]` block is, is
/// `Generated`.
pub const fn assert_method_tool_type<
    Named: IsTheMethodToolType<Generated> + ?Sized,
    Generated: ?Sized,
>() {
}

/// A tool's error is shown to the model, so it must be displayable.
#[diagnostic::on_unimplemented(
    message = "a tool's error type `{Self}` must implement `Display`",
    label = "the model reads the error as text",
    note = "implement `Display` (thiserror's `#[derive(Error)]` does), or map the error into one that does"
)]
pub trait ToolErrorDisplay {
    /// The error as text.
    fn tool_error_message(&self) -> String;
}
impl<T: std::fmt::Display + ?Sized> ToolErrorDisplay for T {
    fn tool_error_message(&self) -> String {
        self.to_string()
    }
}

/// A tool's error as the message shown to the model.
pub fn error_message<E: ToolErrorDisplay + ?Sized>(error: &E) -> String {
    error.tool_error_message()
}

/// Whether two tool names are equal, in a `const` context (`toolset!` compares every pair).
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
