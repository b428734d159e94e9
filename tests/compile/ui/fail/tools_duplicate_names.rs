use tooldef::{tool, tools};

struct Search;

#[tools]
impl Search {
    /// Search the web.
    #[tool]
    fn search(&self, query: String) -> String {
        query
    }

    /// Search the local files.
    #[tool(name = "search")]
    fn search_files(&self, query: String) -> String {
        query
    }

    /// Search the mail.
    #[tool(type_name = "SearchSearch")]
    fn search_mail(&self, query: String) -> String {
        query
    }
}

fn main() {}
