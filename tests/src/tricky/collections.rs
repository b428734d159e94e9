//! Collections: sets (`HashSet`, `BTreeSet`), fixed-size arrays, and (with `strict = false`)
//! maps, a tuple and an untyped value.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::{Value, json};
use tooldef::tool;

/// Tag items (sets: unordered, unique).
#[tool]
pub fn tag_items(
    /// Tags, each once.
    tags: HashSet<String>,
    /// Ports, each once.
    ports: BTreeSet<u16>,
    /// Levels, each once.
    #[schemars(length(max = 4))]
    levels: Option<BTreeSet<i8>>,
) -> Value {
    json!({"tags": tags, "ports": ports, "levels": levels})
}

/// Set a network address (fixed-size arrays).
#[tool]
pub fn set_address(
    /// The four bytes of an IPv4 address.
    octets: [u8; 4],
    /// A point.
    point: [f64; 2],
    /// Ranges, each a pair.
    ranges: Vec<[i16; 2]>,
) -> Value {
    json!({"octets": octets, "point": point, "ranges": ranges})
}

/// Store labels and limits (maps, a tuple and any JSON value: not portable, so not strict).
#[tool(strict = false)]
pub fn store_labels(
    /// Labels by key.
    labels: HashMap<String, u32>,
    /// Limits by name.
    limits: Option<BTreeMap<String, f64>>,
    /// A pair.
    pair: (u8, String),
    /// Anything.
    payload: Value,
) -> Value {
    json!({"labels": labels, "limits": limits, "pair": pair, "payload": payload})
}
