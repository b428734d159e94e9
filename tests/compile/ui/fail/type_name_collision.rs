use serde::Serialize;
use tooldef::tool;

/// What `stats` returns.
#[derive(Serialize)]
struct Stats {
    count: u32,
}

/// Count the items.
#[tool]
fn stats() -> Stats {
    Stats { count: 1 }
}

fn main() {}
