use tooldef::tool;

/// Show the weather.
#[tool(
    icon = "",
    icon = "/static/sun.png",
    icon(mime_type = "png", sizes = "48 96x96 48X48"),
    icon(src = "https://example.com/sun.svg", size = "any")
)]
fn weather() -> String {
    String::new()
}

fn main() {}
