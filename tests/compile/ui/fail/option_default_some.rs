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
    /// The page: a plain value is `Some(…)` in all but its spelling, refused alone (no E0308).
    #[arg(default = 10)]
    page: Option<u32>,
) -> String {
    format!("{query} {limit:?} {offset:?} {page:?}")
}

fn main() {}
