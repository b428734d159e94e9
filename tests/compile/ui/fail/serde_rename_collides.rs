use tooldef::tool;

/// List the items of a page.
#[tool]
fn list(
    /// Results per page.
    #[serde(rename = "pageSize")]
    page_size: u32,
    /// Results per page, as the old API spelled it.
    #[arg(rename = "pageSize")]
    limit: u32,
    /// The field to sort by.
    #[serde(alias = "pageSize")]
    sort: String,
    /// Where the page starts.
    #[serde(rename(deserialize = "sort"))]
    cursor: String,
) -> u32 {
    page_size + limit + sort.len() as u32 + cursor.len() as u32
}

fn main() {}
