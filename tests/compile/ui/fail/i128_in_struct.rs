use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};

#[derive(Deserialize, JsonSchema, Portable)]
struct Ledger {
    /// Balance in micro-cents.
    balance: i128,
}

/// Post.
#[tool]
fn post(ledger: Ledger) -> String {
    ledger.balance.to_string()
}

fn main() {}
