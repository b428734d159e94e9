use tooldef::tool;

/// The weather in a city.
#[tool(example(days = 3), example(city = "Paris"))]
fn forecast(city: String, country: String, #[arg(default = 1)] days: u32, unit: Option<String>) -> String {
    let _ = (country, days, unit);
    city
}

fn main() {}
