//! Strings with validation attributes (length, pattern, email, URL, format), `char`, and IP
//! addresses.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde_json::{Value, json};
use tooldef::tool;

/// Create an account (validated strings).
#[tool]
pub fn create_account(
    /// A short code.
    #[schemars(length(min = 2, max = 8))]
    code: String,
    /// A handle.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_]{0,15}$"))]
    handle: String,
    /// Where to write.
    #[schemars(email)]
    contact: String,
    /// A homepage.
    #[schemars(url)]
    homepage: String,
    /// A country code.
    #[schemars(length(equal = 2))]
    country: String,
    /// Contains three digits somewhere.
    #[schemars(regex(pattern = r"\d{3}"))]
    reference: Option<String>,
    /// A host name.
    #[schemars(extend("format" = "hostname"))]
    host: Option<String>,
) -> Value {
    json!({
        "code": code, "handle": handle, "contact": contact, "homepage": homepage,
        "country": country, "reference": reference, "host": host,
    })
}

/// Route traffic (`char` and IP addresses).
#[tool]
pub fn route(
    /// A one-character mark.
    mark: char,
    /// Words.
    words: Vec<String>,
    /// An IPv4 address.
    v4: Ipv4Addr,
    /// An IPv6 address.
    v6: Ipv6Addr,
    /// Either.
    any: Option<IpAddr>,
) -> Value {
    json!({"mark": mark, "words": words, "v4": v4, "v6": v6, "any": any})
}
