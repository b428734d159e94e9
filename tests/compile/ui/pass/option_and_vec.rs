use tooldef::tool;

/// Filter.
#[tool]
fn filter(
    /// Words.
    words: Vec<String>,
    /// Minimum length.
    min: Option<u32>,
    /// Nested options.
    groups: Option<Vec<Vec<Option<String>>>>,
    /// Sets are arrays of unique items.
    exclude: std::collections::BTreeSet<String>,
    /// Fixed-size arrays.
    corner: [f64; 2],
    ids: Vec<std::num::NonZeroU64>,
) -> Vec<String> {
    let _ = (min, groups, exclude, corner, ids);
    words
}

fn main() {}
