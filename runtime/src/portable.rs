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
//!
//! Those of the families the macros recognise by their spelling (`HashMap`, `BTreeMap`, tuples,
//! `u128`/`i128`, references) are also `#[diagnostic::do_not_recommend]`, so that rustc does not
//! list them among the types that implement `Portable` when a type has not opted in. That makes
//! rustc report them with `Portable`'s message, so the macros check such a type, where it is
//! written, against its marker trait directly (`__private::RefusedMap` and its kind); only a
//! family hidden behind an alias or a generic parameter gets `Portable`'s message. `serde_json`'s
//! `Value` and `Map` are usually imported under names the macros cannot tell from a user's own
//! types, so their impls stay recommended and their message holds everywhere.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

/// A type that every target (MCP, OpenAI strict mode, Anthropic, Gemini) can express as a tool
/// argument.
///
/// Implemented for strings, booleans, integers up to 64 bits, floats, paths, IP and socket
/// addresses, `Duration` and `SystemTime`, and `Option`, sequences, sets and boxes of portable
/// types. For your own argument types, derive it next to `JsonSchema`:
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
    note = "if `{Self}` is defined in your crate, derive `Portable` next to `JsonSchema`: `#[derive(Deserialize, JsonSchema, tooldef::Portable)]`, so that its fields are checked too",
    note = "if it comes from another crate, where you cannot derive it, enable tooldef's feature for that crate if there is one (`chrono`, `uuid`, `url`), or take a portable type of your own in its place (on a field, `#[schemars(with = \"…\")]` names the type whose schema stands for it)",
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
    // Plain objects in serde and schemars: `{"secs", "nanos"}` and
    // `{"secs_since_epoch", "nanos_since_epoch"}`, both 64- and 32-bit unsigned integers.
    std::time::Duration,
    std::time::SystemTime,
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

#[diagnostic::do_not_recommend]
impl<'a, K, V, S> Portable for HashMap<K, V, S> where HashMap<K, V, S>: MapsAreNotPortable<'a> {}
#[diagnostic::do_not_recommend]
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

/// The refusal of tuples whose items all have one type (`(u8, u8, u8)`): the same reason, but
/// what to take instead is an array of that type, which reads the same JSON. `Array` is that
/// array (`[u8; 3]`), spelled out by the macros where they see the tuple written, so that the
/// message can name it; "items of different types" would not be true of such a tuple. The
/// tuples' `Portable` impls cannot tell the two kinds apart (impls for `(T, T)` and `(A, B)`
/// would overlap), so the macros choose between the two traits by the tuple's spelling.
#[diagnostic::on_unimplemented(
    message = "a tuple (`{Self}`) cannot be an argument of a portable tool",
    label = "a tuple's schema describes its items one by one (`prefixItems`), even when they have one type",
    note = "OpenAI strict mode and Gemini do not support `prefixItems`",
    note = "take the array `{Array}` instead, which reads the same JSON and which every target accepts, or opt out with `#[tool(strict = false)]`"
)]
pub trait UniformTuplesAreNotPortable<'a, Array: ?Sized> {}

macro_rules! tuples {
    ($(($($t:ident),+)),* $(,)?) => {
        $(
            #[diagnostic::do_not_recommend]
            impl<'a, $($t),+> Portable for ($($t,)+) where ($($t,)+): TuplesAreNotPortable<'a> {}
        )*
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

#[diagnostic::do_not_recommend]
impl<'a> Portable for u128 where u128: WideIntegersAreNotPortable<'a> {}
#[diagnostic::do_not_recommend]
impl<'a> Portable for i128 where i128: WideIntegersAreNotPortable<'a> {}

/// The refusal of borrowed data, with its reason.
#[diagnostic::on_unimplemented(
    message = "a reference (`{Self}`) cannot be part of a tool's arguments",
    label = "borrowed",
    note = "arguments are deserialised from JSON the model sent, so they must own their data",
    note = "use `String` instead of `&str`, `Vec<T>` instead of `&[T]`, `T` instead of `&T`"
)]
pub trait ReferencesAreNotPortable<'a> {}

#[diagnostic::do_not_recommend]
impl<'a, T: ?Sized> Portable for &'a T where &'a T: ReferencesAreNotPortable<'a> {}
#[diagnostic::do_not_recommend]
impl<'a, T: ?Sized> Portable for &'a mut T where &'a mut T: ReferencesAreNotPortable<'a> {}

#[cfg(feature = "chrono")]
mod chrono_types {
    use super::Portable;

    #[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
    impl<Tz: chrono::TimeZone> Portable for chrono::DateTime<Tz> {}
    #[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
    impl Portable for chrono::NaiveDate {}
    #[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
    impl Portable for chrono::NaiveDateTime {}
    #[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
    impl Portable for chrono::NaiveTime {}
}

#[cfg(feature = "uuid")]
#[cfg_attr(docsrs, doc(cfg(feature = "uuid")))]
impl Portable for uuid::Uuid {}

#[cfg(feature = "url")]
#[cfg_attr(docsrs, doc(cfg(feature = "url")))]
impl Portable for url::Url {}
