use tooldef::{prompt, resource};

pub struct Summary;

/// Summarise.
#[prompt]
fn summarise() -> Summary {
    Summary
}

/// Nothing said.
#[prompt]
fn nothing() {}

/// A count.
#[resource(uri = "stats://count")]
async fn count() -> u64 {
    3
}

fn main() {}
