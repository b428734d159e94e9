use tooldef::tool;

/// List the items of a page.
#[tool]
fn list(
    /// Results per page. Already renamed: the advice is to change this rename, as a second one
    /// (#[arg(rename)]) would be refused.
    #[serde(rename = "limit")]
    page_size: u32,
    /// Most results in all.
    limit: u32,
    /// The field to sort by.
    #[arg(rename = "order")]
    sort: String,
    /// The direction. Renaming it would leave the alias: the advice is to change the alias.
    #[serde(alias = "order")]
    direction: String,
) -> u32 {
    page_size + limit + sort.len() as u32 + direction.len() as u32
}

fn main() {}
