use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};
use tooldef::Args;

#[derive(Deserialize, JsonSchema, Portable)]
struct Query {
    text: String,
}

/// Search.
#[tool]
fn search(Args(query): Args<Query>, limit: u32) -> String {
    format!("{} {limit}", query.text)
}

fn main() {}
