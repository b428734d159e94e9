use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};
use tooldef::{Target, Tool};

#[derive(Deserialize, JsonSchema, Portable)]
struct Address {
    /// Street and number.
    street: String,
    /// Postal code.
    #[schemars(length(min = 4, max = 10))]
    postcode: String,
}

#[derive(Deserialize, JsonSchema, Portable)]
struct Customer {
    name: String,
    address: Address,
    previous: Vec<Address>,
}

/// Register a customer.
#[tool]
fn register(customer: Customer) -> String {
    customer.name
}

fn main() {
    assert!(Register.definition().render(Target::Gemini).is_ok());
}
