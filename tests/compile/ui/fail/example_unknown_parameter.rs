use tooldef::tool;

/// The weather in a city.
#[tool(example(cty = "Paris"), example(city = "Oslo", pageSize = 2, city = "Rome"))]
fn forecast(city: String, #[arg(rename = "pageSize")] page_size: Option<u8>) -> String {
    let _ = page_size;
    city
}

fn main() {}
