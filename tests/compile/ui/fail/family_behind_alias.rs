use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};

/// Behind an alias, the macro cannot see that this is a map.
type Labels = HashMap<String, String>;

#[derive(Deserialize, JsonSchema, Portable)]
struct Page<T> {
    items: Vec<T>,
}

/// Tag things.
#[tool]
fn tag(labels: Labels, points: Page<(f64, f64)>) -> usize {
    labels.len() + points.items.len()
}

fn main() {}
