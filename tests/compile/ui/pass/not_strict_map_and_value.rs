use std::collections::HashMap;
use tooldef::{Target, Tool, tool};

/// Store arbitrary metadata.
#[tool(strict = false)]
fn store(
    /// Labels.
    labels: HashMap<String, String>,
    /// Anything.
    payload: serde_json::Value,
    pair: (u32, String),
) -> usize {
    let _ = (payload, pair);
    labels.len()
}

fn main() {
    let chat = Store.definition().to_json(Target::ChatCompletions).unwrap();
    assert_eq!(chat["function"]["strict"], false);
}
