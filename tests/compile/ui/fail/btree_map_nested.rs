use std::collections::BTreeMap;
use tooldef::tool;

/// Score.
#[tool]
fn score(scores: Vec<Option<BTreeMap<String, f64>>>) -> usize {
    scores.len()
}

fn main() {}
