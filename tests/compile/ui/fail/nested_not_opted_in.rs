use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::tool;

#[derive(Deserialize, JsonSchema)]
struct Address {
    street: String,
}

/// Ship.
#[tool]
fn ship(to: Address) -> String {
    to.street
}

fn main() {}
