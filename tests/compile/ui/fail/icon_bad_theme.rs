use tooldef::tool;

/// Show the weather.
#[tool(icon(src = "https://example.com/sun.png", theme = "night"))]
fn weather() -> String {
    String::new()
}

fn main() {}
