//! Nested options: `Option<Option<T>>`, `Option<Vec<Option<T>>>`, `Vec<Vec<Option<T>>>`, next
//! to a defaulted integer (tooldef refuses an `Option` whose default is not `None`: `None` could
//! never be chosen).

use serde_json::{Value, json};
use tooldef::tool;

/// Annotate a record (nested options).
#[tool]
pub fn annotate(
    /// The record.
    id: u32,
    /// A note; `null` or absent for none.
    note: Option<Option<String>>,
    /// Scores, some unknown.
    scores: Option<Vec<Option<i32>>>,
    /// A grid of optional cells.
    grid: Vec<Vec<Option<u8>>>,
    /// A limit, 3 unless given.
    #[arg(default = 3)]
    limit: u32,
) -> Value {
    json!({"id": id, "note": note, "scores": scores, "grid": grid, "limit": limit})
}
