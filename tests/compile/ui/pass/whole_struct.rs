use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};
use tooldef::Args;

#[derive(Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Query {
    search_text: String,
    #[serde(default)]
    page_size: Option<u32>,
    #[serde(skip)]
    cache: std::collections::HashMap<String, String>,
}

/// Search.
#[tool]
async fn search(Args(query): Args<Query>) -> Vec<String> {
    let _ = (query.page_size, query.cache);
    vec![query.search_text]
}

fn main() {}
