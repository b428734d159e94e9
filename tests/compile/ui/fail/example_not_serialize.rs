use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};

#[derive(Deserialize, JsonSchema, Portable)]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// The weather in a city.
#[tool(example(city = "Paris", unit = Unit::Celsius))]
fn forecast(city: String, unit: Unit) -> String {
    let _ = unit;
    city
}

fn main() {}
