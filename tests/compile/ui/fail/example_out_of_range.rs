use tooldef::tool;

/// The weather in a city.
#[tool(
    example(city = "Paris", days = 30),
    example(city = "", days = 0, limit = Some(99)),
    example(city = "Llanfairpwllgwyngyll", limit = 0),
)]
fn forecast(
    #[schemars(length(min = 1, max = 12))] city: String,
    #[arg(default = 1)]
    #[schemars(range(max = 14))]
    #[validate(range(min = 1))]
    days: u32,
    #[garde(range(min = 1, max = 50))] limit: Option<u8>,
) -> String {
    let _ = limit;
    format!("{days} days in {city}")
}

fn main() {}
