use tooldef::tool;

/// The weather in a city.
#[tool(example(city = "Paris", days = "three"))]
fn forecast(city: String, days: u32) -> String {
    format!("{days} days in {city}")
}

fn main() {}
