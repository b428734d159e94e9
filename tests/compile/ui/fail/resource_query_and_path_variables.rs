use tooldef::resource;

/// Search the books of a shelf.
#[resource(uri = "books://{shelf}{?q,page}")]
fn search(shelf: Option<String>, q: String, #[arg(default = 1)] page: u32) -> String {
    format!("{shelf:?} {q} {page}")
}

/// A book.
#[resource(uri = "books://{id}/text")]
fn book(#[arg(default = 7)] id: u32) -> String {
    id.to_string()
}

fn main() {}
