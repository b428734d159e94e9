use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};

#[derive(Deserialize, JsonSchema, Portable)]
struct Page<T> {
    items: Vec<T>,
    cursor: Option<String>,
}

/// Sum a page.
#[tool]
fn sum(page: Page<i64>) -> i64 {
    let _ = page.cursor;
    page.items.iter().sum()
}

fn main() {}
