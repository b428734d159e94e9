use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::Portable;

#[derive(Deserialize, JsonSchema)]
struct Address {
    street: String,
}

#[derive(Deserialize, JsonSchema, Portable)]
struct Order {
    items: Vec<String>,
    ship_to: Address,
}

fn main() {}
