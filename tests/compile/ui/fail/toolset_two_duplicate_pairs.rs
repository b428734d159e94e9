use tooldef::{tool, toolset};

mod web {
    use tooldef::tool;

    /// Search the web.
    #[tool]
    pub fn search(query: String) -> String {
        query
    }
}

mod files {
    use tooldef::tool;

    /// Search the local files.
    #[tool]
    pub fn search(query: String) -> String {
        query
    }
}

/// Fetch a page.
#[tool]
fn fetch(url: String) -> String {
    url
}

/// Add.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Download a file.
#[tool(name = "fetch")]
fn download(url: String) -> String {
    url
}

fn main() {
    let _ = toolset![web::Search, Fetch, Add, files::Search, Download].build();
}
