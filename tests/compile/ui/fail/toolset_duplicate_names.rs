use tooldef::{tool, toolset};

/// Search the web.
#[tool]
fn search(query: String) -> String {
    query
}

/// Search the local files.
#[tool(name = "search")]
fn search_files(query: String) -> String {
    query
}

fn main() {
    let _ = toolset![Search, SearchFiles].build();
}
