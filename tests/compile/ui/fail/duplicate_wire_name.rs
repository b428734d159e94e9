use tooldef::tool;

/// Search.
#[tool]
fn search(
    /// Text.
    query: String,
    /// Also text.
    #[arg(rename = "query")]
    text: String,
) -> String {
    query + &text
}

fn main() {}
