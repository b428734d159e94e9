use tooldef::tool;

/// List the items of a page.
#[tool]
fn list(
    /// Results per page.
    #[arg(rename = "pageSize")]
    #[serde(rename = "page_size")]
    limit: u32,
) -> u32 {
    limit
}

fn main() {}
