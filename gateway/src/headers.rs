//! The gateway's own HTTP headers, in one place: the one clients send it, and those it adds to
//! its answers to say what became of a request.

use http::{HeaderName, HeaderValue};

/// The header clients present the gateway's own key in.
pub const KEY: &str = "x-tooldef-key";

/// The injected tools whose names the client's own tools took (they were left out).
pub const CONFLICTS: HeaderName = HeaderName::from_static("x-tooldef-conflicts");

/// The servers whose tools were left out because they are down.
pub const SERVERS_DOWN: HeaderName = HeaderName::from_static("x-tooldef-servers-down");

/// How many upstream requests (rounds) the answer took.
pub const ROUNDS: HeaderName = HeaderName::from_static("x-tooldef-rounds");

/// The gateway's bound (`max_rounds`, `max_tool_calls`) that cut the answer short.
pub const INCOMPLETE: HeaderName = HeaderName::from_static("x-tooldef-incomplete");

/// `unavailable`: the store could not be read, and the conversation's earlier turns went to the
/// model as the client wrote them.
pub const STORE: HeaderName = HeaderName::from_static("x-tooldef-store");

/// The API the upstream was spoken to in, when it is not the client's (the request was
/// translated).
pub const UPSTREAM_API: HeaderName = HeaderName::from_static("x-tooldef-upstream-api");

/// A header of `name` with a text value, when the text can be one.
pub fn text(name: HeaderName, value: &str) -> Option<(HeaderName, HeaderValue)> {
    HeaderValue::from_str(value).ok().map(|value| (name, value))
}
