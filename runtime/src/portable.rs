//! Which argument types a portable tool can take: those every target expresses strictly.
//!
//! `#[tool]` asserts [`Portable`] on each argument's type, and `#[derive(Portable)]` asserts it on
//! each field of a type, so the check reaches through nested types to the field at fault. Types
//! no target can express strictly are refused through marker traits whose messages say why and
//! what to use instead; a tool may opt out with `#[tool(strict = false)]`.
//!
//! The refusing impls carry a lifetime parameter only so that their always-false bound is not
//! "trivial": rustc then accepts the impl and, at the use site, reports the marker trait's own
//! message for the leaf type (`a map (`HashMap<String, u32>`) cannot be…`).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

/// A type that every target (MCP, OpenAI strict mode, Anthropic, Gemini) can express as a tool
/// argument.
///
/// Implemented for strings, booleans, integers up to 64 bits, floats, `Option`, sequences, sets
/// and boxes of portable types. For your own argument types, derive it next to `JsonSchema`:
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use tooldef::Portable;
///
/// #[derive(Deserialize, JsonSchema, Portable)]
/// struct Guest {
///     name: String,
///     nights: u16,
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has not opted in to tooldef's portability checks",
    label = "not known to be portable to every target",
    note = "derive it next to `JsonSchema`: `#[derive(Deserialize, JsonSchema, tooldef::Portable)]`, so that its fields are checked too",
    note = "or, for a type from another crate, use a field type that is portable, or enable tooldef's feature for that crate (`chrono`, `uuid`, `url`)",
    note = "or opt the tool out of the checks with `#[tool(strict = false)]`; it is then rendered non-strict for OpenAI and Anthropic"
)]
pub trait Portable {}

macro_rules! portable {
    ($($ty:ty),* $(,)?) => { $(impl Portable for $ty {})* };
}

portable!(
    bool,
    char,
    String,
    str,
    i8,
    i16,
    i32,
    i64,
    isize,
    u8,
    u16,
    u32,
    u64,
    usize,
    f32,
    f64,
    std::path::PathBuf,
    std::path::Path,
    std::net::IpAddr,
    std::net::Ipv4Addr,
    std::net::Ipv6Addr,
    std::net::SocketAddr,
    std::net::SocketAddrV4,
    std::net::SocketAddrV6,
    std::num::NonZeroU8,
    std::num::NonZeroU16,
    std::num::NonZeroU32,
    std::num::NonZeroU64,
    std::num::NonZeroUsize,
    std::num::NonZeroI8,
    std::num::NonZeroI16,
    std::num::NonZeroI32,
    std::num::NonZeroI64,
    std::num::NonZeroIsize,
);

impl<T: Portable> Portable for Option<T> {}
impl<T: Portable> Portable for Vec<T> {}
impl<T: Portable> Portable for VecDeque<T> {}
impl<T: Portable> Portable for LinkedList<T> {}
impl<T: Portable> Portable for [T] {}
impl<T: Portable, const N: usize> Portable for [T; N] {}
impl<T: Portable> Portable for BTreeSet<T> {}
impl<T: Portable, S> Portable for HashSet<T, S> {}
impl<T: Portable + ?Sized> Portable for Box<T> {}
impl<T: Portable + ?Sized> Portable for Arc<T> {}
impl<T: Portable + ?Sized> Portable for Rc<T> {}
impl<T: Portable + ToOwned + ?Sized> Portable for Cow<'static, T> {}
impl<T: Portable> Portable for std::cmp::Reverse<T> {}
impl<T: Portable> Portable for std::num::Wrapping<T> {}

/// The refusal of maps, with its reason.
#[diagnostic::on_unimplemented(
    message = "a map (`{Self}`) cannot be an argument of a portable tool",
    label = "a map's keys are not known in advance",
    note = "OpenAI strict mode needs every object closed (`additionalProperties: false`) and Gemini cannot express `additionalProperties` at all",
    note = "take a `Vec` of key/value structs instead (e.g. `Vec<Entry>` with `key` and `value` fields), or opt out with `#[tool(strict = false)]`"
)]
pub trait MapsAreNotPortable<'a> {}

impl<'a, K, V, S> Portable for HashMap<K, V, S> where HashMap<K, V, S>: MapsAreNotPortable<'a> {}
impl<'a, K, V> Portable for BTreeMap<K, V> where BTreeMap<K, V>: MapsAreNotPortable<'a> {}
impl<'a> Portable for serde_json::Map<String, serde_json::Value> where
    serde_json::Map<String, serde_json::Value>: MapsAreNotPortable<'a>
{
}

/// The refusal of untyped JSON values, with its reason.
#[diagnostic::on_unimplemented(
    message = "`{Self}` (any JSON value) cannot be an argument of a portable tool",
    label = "untyped: any JSON value",
    note = "OpenAI strict mode needs a type for every value, and Gemini needs one for every schema",
    note = "take a type that says what the model must send, or opt out with `#[tool(strict = false)]`"
)]
pub trait UntypedValuesAreNotPortable<'a> {}

impl<'a> Portable for serde_json::Value where serde_json::Value: UntypedValuesAreNotPortable<'a> {}

/// The refusal of tuples, with its reason.
#[diagnostic::on_unimplemented(
    message = "a tuple (`{Self}`) cannot be an argument of a portable tool",
    label = "a tuple is an array whose items have different types",
    note = "OpenAI strict mode and Gemini have no `prefixItems`, so the model would not know which item is which",
    note = "take a struct with named fields instead, or opt out with `#[tool(strict = false)]`"
)]
pub trait TuplesAreNotPortable<'a> {}

macro_rules! tuples {
    ($(($($t:ident),+)),* $(,)?) => {
        $(impl<'a, $($t),+> Portable for ($($t,)+) where ($($t,)+): TuplesAreNotPortable<'a> {})*
    };
}

tuples!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F),
    (A, B, C, D, E, F, G),
    (A, B, C, D, E, F, G, H),
);

/// The refusal of 128-bit integers, with its reason.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an argument of a portable tool",
    label = "a 128-bit integer",
    note = "Gemini's integers are at most `int64`, and models and most JSON parsers use 64-bit integers or doubles, so large values would arrive rounded",
    note = "take `u64`/`i64`, or a `String` of digits that you parse yourself"
)]
pub trait WideIntegersAreNotPortable<'a> {}

impl<'a> Portable for u128 where u128: WideIntegersAreNotPortable<'a> {}
impl<'a> Portable for i128 where i128: WideIntegersAreNotPortable<'a> {}

/// The refusal of borrowed data, with its reason.
#[diagnostic::on_unimplemented(
    message = "a reference (`{Self}`) cannot be part of a tool's arguments",
    label = "borrowed",
    note = "arguments are deserialised from JSON the model sent, so they must own their data",
    note = "use `String` instead of `&str`, `Vec<T>` instead of `&[T]`, `T` instead of `&T`"
)]
pub trait ReferencesAreNotPortable<'a> {}

impl<'a, T: ?Sized> Portable for &'a T where &'a T: ReferencesAreNotPortable<'a> {}
impl<'a, T: ?Sized> Portable for &'a mut T where &'a mut T: ReferencesAreNotPortable<'a> {}

#[cfg(feature = "chrono")]
mod chrono_types {
    use super::Portable;

    impl<Tz: chrono::TimeZone> Portable for chrono::DateTime<Tz> {}
    impl Portable for chrono::NaiveDate {}
    impl Portable for chrono::NaiveDateTime {}
    impl Portable for chrono::NaiveTime {}
}

#[cfg(feature = "uuid")]
impl Portable for uuid::Uuid {}

#[cfg(feature = "url")]
impl Portable for url::Url {}
