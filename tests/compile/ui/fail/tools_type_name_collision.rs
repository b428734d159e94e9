use tooldef::{tool, tools};

/// What `Library::search` finds.
#[derive(serde::Serialize)]
struct LibrarySearch {
    titles: Vec<String>,
}

struct Library;

#[tools]
impl Library {
    /// Search the library.
    #[tool]
    fn search(&self, query: String) -> LibrarySearch {
        LibrarySearch {
            titles: vec![query],
        }
    }
}

fn main() {}
