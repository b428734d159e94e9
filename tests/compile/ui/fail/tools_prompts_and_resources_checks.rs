use tooldef::{prompt, resource, tool, tools};

struct Library;

#[tools]
impl Library {
    /// Search.
    #[tool]
    #[prompt]
    fn search(&self, query: String) -> String {
        query
    }

    /// A book.
    #[resource(uri = "books://{id}")]
    fn book(&self, id: u32) -> String {
        id.to_string()
    }

    /// The same book.
    #[resource(uri = "books://{id}")]
    fn same_book(&self, id: u32) -> String {
        id.to_string()
    }

    /// Suggest a book.
    #[prompt(name = "suggest")]
    fn suggest(&mut self) -> String {
        String::new()
    }

    /// Suggest another.
    #[prompt(name = "suggest")]
    fn suggest_again(&self) -> String {
        String::new()
    }
}

fn main() {}
