use std::collections::HashMap;

use tooldef::{Elicit, ElicitError, Elicitable, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Address {
    street: String,
    city: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
struct Shipping {
    /// Where to send it.
    address: Address,
    /// Notes by topic.
    notes: HashMap<String, String>,
    /// Tags.
    tags: Vec<String>,
    /// Fine: an optional number.
    insured_value: Option<f64>,
}

/// Ship a parcel.
#[tool]
async fn ship(
    /// The parcel.
    parcel: String,
    elicit: Elicit,
) -> Result<String, ElicitError> {
    let shipping: Shipping = elicit.ask("Where to?").await?;
    Ok(format!("{parcel} to {}", shipping.address.city))
}

fn main() {}
