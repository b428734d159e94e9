use tooldef::tool;

/// Search the index.
#[tool]
fn search(
    /// Words to search for.
    query: String,
    /// At most this many results.
    #[arg(default = Some(20))]
    limit: Option<u32>,
    /// Where to start; `Default` of `Option` is `None`, so this one is fine.
    #[arg(default)]
    offset: Option<u32>,
) -> String {
    format!("{query} {limit:?} {offset:?}")
}

fn main() {}
