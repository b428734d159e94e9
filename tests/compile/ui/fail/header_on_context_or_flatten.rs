use tooldef::{Args, State, tool};

#[derive(Clone, Default)]
struct Db;

#[derive(serde::Deserialize, schemars::JsonSchema, tooldef::Portable)]
struct Paging {
    /// The page.
    page: u32,
}

#[derive(serde::Deserialize, schemars::JsonSchema, tooldef::Portable)]
struct Search {
    /// What to find.
    text: String,
}

/// Query.
#[tool]
fn query(
    /// The query.
    sql: String,
    #[arg(header = "Db")] db: State<Db>,
    #[arg(header = "Page")]
    #[serde(flatten)]
    paging: Paging,
) -> String {
    let _ = (db, paging.page);
    sql
}

/// Find.
#[tool]
fn find(#[arg(header = "Text")] Args(search): Args<Search>) -> String {
    search.text
}

fn main() {}
