use std::collections::HashMap;
use tooldef::tool;

/// Tag.
#[tool]
fn tag(labels: HashMap<String, String>) -> usize {
    labels.len()
}

fn main() {}
